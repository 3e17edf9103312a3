/**
 * Sellers (franchise seller mappings): created by the merchant, read back by the merchant's
 * own identifier. Errors use the {code, message} shape.
 */
import { randomUUID } from 'node:crypto';
import { isDuplicateKey } from '../../activities/repositories/organizations';
import { findSellerByMerchantId, SellerDoc, sellers } from '../../activities/repositories/sellers';
import { MerchantSellerId, Seller, SellerCreateRequest } from '../../domain/codecs/sellers';
import { ApiError } from '../../domain/errors';
import type { AppDeps } from '../context';
import type { RouteTable } from '../routes';

const TAG = 'Sellers';

function sellerView(doc: SellerDoc): Seller {
  const { _id, organization_code: _organization, created_at, updated_at, ...fields } = doc;
  return { seller_id: _id, ...fields, created_at: created_at.toISOString(), updated_at: updated_at.toISOString() };
}

export function registerSellerRoutes(routes: RouteTable, deps: AppDeps): void {
  routes.add(
    {
      method: 'POST', path: '/v1/sellers', operationId: 'createSeller', tag: TAG, area: 'sellers', auth: 'pair',
      summary: 'Create a seller mapping',
      description:
        'Required: merchant_seller_id (your identifier, unique within your organization), name (3 to 255), email, country, ' +
        'merchant_category_code (4 digits). Optional fields are returned as null when not sent; payment_methods as [].',
      idempotency: { required: false, format: 'uuid', onDifferentPayload: 'replay' },
      body: SellerCreateRequest,
      responses: {
        201: { description: 'The seller', body: Seller },
        409: { description: 'SELLER_ALREADY_EXISTS: your organization has a seller with this merchant_seller_id' },
      },
    },
    async (ctx, body) => {
      const now = new Date();
      const doc: SellerDoc = {
        _id: randomUUID(),
        organization_code: ctx.state.principal!.organizationCode,
        merchant_seller_id: body.merchant_seller_id,
        name: body.name,
        email: body.email,
        phone: body.phone ?? null,
        document: body.document ?? null,
        address: body.address
          ? { line_1: body.address.line_1, line_2: body.address.line_2 ?? null, city: body.address.city, state: body.address.state ?? null, country: body.address.country, zip_code: body.address.zip_code ?? null }
          : null,
        country: body.country,
        website: body.website ?? null,
        industry: body.industry ?? null,
        merchant_category_code: body.merchant_category_code,
        payment_methods: (body.payment_methods ?? []).map((m) => ({ ...m, wallet_details: m.wallet_details ?? null })),
        created_at: now,
        updated_at: now,
      };
      try {
        await sellers(deps.db).insertOne(doc);
      } catch (error) {
        if (isDuplicateKey(error)) throw new ApiError('conflict', 'a seller with this merchant_seller_id already exists', { code: 'SELLER_ALREADY_EXISTS' });
        throw error;
      }
      ctx.status = 201;
      ctx.set('Location', `/v1/sellers/${encodeURIComponent(doc.merchant_seller_id)}`);
      ctx.body = sellerView(doc);
    },
  );

  routes.add(
    {
      method: 'GET', path: '/v1/sellers/:merchant_seller_id', operationId: 'getSeller', tag: TAG, area: 'sellers', auth: 'pair-or-bearer',
      summary: 'Read a seller by your own identifier',
      pathParams: [{ name: 'merchant_seller_id', description: 'your identifier of the seller', schema: { type: 'string', maxLength: 255 } }],
      responses: { 200: { description: 'The seller', body: Seller }, 404: { description: 'SELLER_NOT_FOUND' } },
    },
    async (ctx) => {
      const id = ctx.params.merchant_seller_id;
      const doc = MerchantSellerId.is(id) ? await findSellerByMerchantId(deps.db, ctx.state.principal!.organizationCode, id) : null;
      if (!doc) throw new ApiError('not_found', 'seller not found', { code: 'SELLER_NOT_FOUND' });
      ctx.body = sellerView(doc);
    },
  );
}
