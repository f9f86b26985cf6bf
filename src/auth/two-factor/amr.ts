/**
 * @module auth/two-factor/amr
 * The login's amr and second-factor state live with the login flow (auth/login/amr); this module
 * keeps the names the feature's files and apps import.
 */
export { AMR_SESSION_KEY, MFA_INTENDED, SECOND_FACTOR_AT, setSessionAmr, sessionAmr, hasSecondFactor, markSecondFactor, secondFactorRecent } from '../login/amr.js'
