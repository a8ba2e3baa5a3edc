/**
 * What PostgreSQL can store. A NUL (U+0000) is refused in every text column and in jsonb; an
 * unpaired UTF-16 surrogate is refused in jsonb (JSON.stringify escapes it as `\ud800`) and
 * silently becomes U+FFFD in text. Identifiers and names are also shown, logged and compared,
 * so they must not carry control characters either (C0, DEL and C1).
 */
const NUL = /\u0000/g;
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;
const UNSTORABLE = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

/** A NUL or an unpaired surrogate: PostgreSQL would refuse the string. */
export const hasUnstorableCharacters = (value: string): boolean => UNSTORABLE.test(value);

/** Control characters (C0, DEL, C1), NUL included: not in an identifier or a name. */
export const hasControlCharacters = (value: string): boolean => CONTROL.test(value);

/** Free text made storable: NULs removed, unpaired surrogates replaced by U+FFFD (as text columns would). */
export const toStorableText = (value: string): string => value.replace(NUL, '').replace(LONE_SURROGATE, '\ufffd');

/** A JSON value (for a jsonb column) with every string, keys included, made storable. */
export function toStorableJson(value: unknown): unknown {
  if (typeof value === 'string') return toStorableText(value);
  if (Array.isArray(value)) return value.map(toStorableJson);
  if (value !== null && typeof value === 'object' && !(value instanceof Date)) {
    return Object.fromEntries(Object.entries(value).map(([key, inner]) => [toStorableText(key), toStorableJson(inner)]));
  }
  return value;
}
