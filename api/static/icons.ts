/**
 * Icons of the enrollable payment methods (GET /v1/checkout/customers/sessions/{id}/payment-methods
 * answers their URLs). Kept as source, so the build ships them with the code and an icon the
 * list names always exists; 24x24, no script, no external reference.
 */
export const ICONS = {
  card:
    '<svg xmlns="http://www.w3.org/2000/svg" width="24" height="24" viewBox="0 0 24 24" role="img" aria-label="Card">' +
    '<rect x="2" y="5" width="20" height="14" rx="2" fill="none" stroke="#1f2937" stroke-width="1.5"/>' +
    '<rect x="2" y="8.5" width="20" height="2.5" fill="#1f2937"/>' +
    '<rect x="5" y="14" width="6" height="2" rx="0.5" fill="#6b7280"/>' +
    '</svg>\n',
  wallet:
    '<svg xmlns="http://www.w3.org/2000/svg" width="24" height="24" viewBox="0 0 24 24" role="img" aria-label="Wallet">' +
    '<path d="M4 7h14a2 2 0 0 1 2 2v8a2 2 0 0 1-2 2H5a2 2 0 0 1-2-2V8a1 1 0 0 1 1-1z" fill="none" stroke="#1f2937" stroke-width="1.5"/>' +
    '<path d="M4 7l11-3v3" fill="none" stroke="#1f2937" stroke-width="1.5" stroke-linejoin="round"/>' +
    '<circle cx="16.5" cy="13" r="1.25" fill="#1f2937"/>' +
    '</svg>\n',
} as const;

export type IconName = keyof typeof ICONS;

export const ICON_PATH_PREFIX = '/static/icons/';

/** The public URL of an icon; only names that exist type-check. */
export function iconUrl(publicBaseUrl: string, name: IconName): string {
  return `${publicBaseUrl}${ICON_PATH_PREFIX}${name}.svg`;
}
