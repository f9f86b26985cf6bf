/**
 * @module validation
 * `validate(data, rules, options)` with Laravel-style rules, built on valibot.
 */
export { validate, type ValidateOptions, type Rules } from './validate.js'
export { parseRules, BUILTIN_RULES, type RuleSpec, type CustomRule, type RuleContext, type ParsedRule, type BuiltinRule } from './rule-spec.js'
export { DEFAULT_MESSAGES, formatMessage, attributeName } from './messages.js'
export { ValidationError } from '../http/errors.js'
