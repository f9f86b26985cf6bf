/**
 * @module validation/messages
 * The default English messages, Laravel's wording. Placeholders: `:attribute` (the field name with
 * underscores as spaces), `:min`, `:max`, `:other`. Override per rule (`'required'`) or per field
 * and rule (`'email.unique'`) through `validate(..., { messages })`.
 */
export const DEFAULT_MESSAGES: Record<string, string> = {
  required: 'The :attribute field is required.',
  string: 'The :attribute field must be a string.',
  email: 'The :attribute field must be a valid email address.',
  numeric: 'The :attribute field must be a number.',
  integer: 'The :attribute field must be an integer.',
  boolean: 'The :attribute field must be true or false.',
  array: 'The :attribute field must be an array.',
  'min.string': 'The :attribute field must be at least :min characters.',
  'min.numeric': 'The :attribute field must be at least :min.',
  'min.array': 'The :attribute field must have at least :min items.',
  'max.string': 'The :attribute field must not be greater than :max characters.',
  'max.numeric': 'The :attribute field must not be greater than :max.',
  'max.array': 'The :attribute field must not have more than :max items.',
  confirmed: 'The :attribute field confirmation does not match.',
  same: 'The :attribute field must match :other.',
  in: 'The selected :attribute is invalid.',
  unique: 'The :attribute has already been taken.',
  exists: 'The selected :attribute is invalid.',
  invalid: 'The :attribute field is invalid.',
}

/** The field as people read it: `password_confirmation` → `password confirmation`. */
export function attributeName(field: string): string {
  return field.replace(/[_.]+/g, ' ').trim()
}

/**
 * The message for `rule` on `field`: `messages['field.rule']`, then `messages['rule']` (also
 * tried with the `.string`/`.numeric`/`.array` variant first), then the default.
 */
export function formatMessage(
  field: string,
  rule: string,
  params: Record<string, string>,
  overrides: Record<string, string> = {},
  attributes: Record<string, string> = {},
): string {
  const base = rule.split('.')[0]!
  const template =
    overrides[`${field}.${rule}`] ??
    overrides[`${field}.${base}`] ??
    overrides[rule] ??
    overrides[base] ??
    DEFAULT_MESSAGES[rule] ??
    DEFAULT_MESSAGES[base] ??
    DEFAULT_MESSAGES.invalid!
  const values: Record<string, string> = { attribute: attributes[field] ?? attributeName(field), ...params }
  return template.replace(/:([a-z_]+)/g, (match, key: string) => (Object.hasOwn(values, key) ? values[key]! : match))
}
