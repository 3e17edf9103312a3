/**
 * Static assets the API itself links to: the payment-method icons.
 */
import { createHash } from 'node:crypto';
import { ApiError } from '../../domain/errors';
import type { AppDeps } from '../context';
import type { RouteTable } from '../routes';
import { ICONS, IconName } from '../static/icons';

/** A day in caches; the ETag makes a later revalidation a 304 without the body. */
const ICON_CACHE_CONTROL = 'public, max-age=86400';

const served = new Map(
  (Object.entries(ICONS) as Array<[IconName, string]>).map(([name, svg]) => [
    `${name}.svg`,
    { body: Buffer.from(svg, 'utf8'), etag: `"${createHash('sha256').update(svg).digest('base64url').slice(0, 22)}"` },
  ]),
);

/** If-None-Match: a list of entity tags (weak ones compare equal too) or `*`. */
function matchesEtag(header: string, etag: string): boolean {
  if (!header) return false;
  return header.split(',').some((tag) => {
    const t = tag.trim();
    return t === '*' || t === etag || t === `W/${etag}`;
  });
}

export function registerStaticRoutes(routes: RouteTable, _deps: AppDeps): void {
  routes.add(
    {
      method: 'GET', path: '/static/icons/:file', operationId: 'paymentMethodIcon', tag: 'Customers', area: 'default', auth: 'none', unlimited: true,
      summary: 'Icon of an enrollable payment method (the icon URL of the list)',
      description: `SVG, no credentials needed (an <img> of the checkout loads it). Cache-Control: ${ICON_CACHE_CONTROL}, with an ETag (If-None-Match answers 304). Icons: ${[...served.keys()].join(', ')}.`,
      pathParams: [{ name: 'file', description: 'icon file name, e.g. card.svg', schema: { type: 'string', enum: [...served.keys()] } }],
      responses: {
        200: { description: 'The icon', contentType: 'image/svg+xml', schema: { type: 'string' } },
        304: { description: 'Not modified (If-None-Match matched the ETag)' },
        404: { description: 'NOT_FOUND: no such icon' },
      },
    },
    (ctx) => {
      const icon = served.get(ctx.params.file);
      if (!icon) throw new ApiError('not_found', 'icon not found', { code: 'ICON_NOT_FOUND' });
      ctx.set('Cache-Control', ICON_CACHE_CONTROL);
      ctx.set('ETag', icon.etag);
      ctx.set('X-Content-Type-Options', 'nosniff');
      // Loadable from a checkout on another origin, even one with cross-origin isolation.
      ctx.set('Cross-Origin-Resource-Policy', 'cross-origin');
      ctx.set('Content-Security-Policy', "default-src 'none'; style-src 'unsafe-inline'");
      ctx.type = 'image/svg+xml';
      if (matchesEtag(ctx.get('if-none-match'), icon.etag)) {
        ctx.status = 304;
        return;
      }
      ctx.body = icon.body;
    },
  );
}
