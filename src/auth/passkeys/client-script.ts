/**
 * @module auth/passkeys/client-script
 * The browser side of passkeys, served as `GET /passkeys/client.js` after @simplewebauthn/browser's
 * own bundle (which defines `SimpleWebAuthnBrowser`). An external file, so a Content-Security-Policy
 * without `'unsafe-inline'` allows it. What it does to a page:
 *
 * - `[data-passkey-offer]`: hidden until this script finds WebAuthn in the browser.
 * - `button[data-passkey-login]`: login options, the
 *   browser's passkey prompt, `POST /passkeys/login`, then it follows the `redirect` answered.
 *   `data-next` (else the form's `next` field, else `?next=`) is where to go afterwards.
 * - An input with `autocomplete="username webauthn"`: where the browser offers passkeys as
 *   autofill (conditional UI), when it can.
 * - `button[data-passkey-register]`: register options, the browser's prompt to create a passkey,
 *   `POST /passkeys/register` with the form's `name` field, then the page again. When the
 *   password has to be confirmed first, or a second factor shown first (a user who has one,
 *   logged in with the password alone), the button's form is submitted as a plain form, which
 *   goes through the password confirmation or the step-up page and back.
 * - Messages go to `[data-passkey-status]` (a live region).
 *
 * The CSRF token is the button's `data-csrf`, else its form's `__token`, else the page's first
 * `__token` field, sent as `X-CSRF-TOKEN`.
 */
export const PASSKEY_CLIENT_SCRIPT = String.raw`
(function () {
  'use strict';
  var lib = window.SimpleWebAuthnBrowser;
  if (!lib || !lib.browserSupportsWebAuthn()) return;

  function csrfFor(el) {
    if (el && el.getAttribute('data-csrf')) return el.getAttribute('data-csrf');
    var form = el && el.form;
    if (form && form.elements.__token) return form.elements.__token.value;
    var field = document.querySelector('input[name="__token"]');
    if (field) return field.value;
    var meta = document.querySelector('meta[name="csrf-token"]');
    return meta ? meta.getAttribute('content') : '';
  }

  function nextFor(el) {
    if (el && el.getAttribute('data-next')) return el.getAttribute('data-next');
    var field = document.querySelector('input[name="next"]');
    if (field && field.value) return field.value;
    return new URLSearchParams(location.search).get('next');
  }

  function say(message) {
    var region = document.querySelector('[data-passkey-status]');
    if (region) region.textContent = message;
  }

  async function post(url, body, csrf) {
    var res = await fetch(url, {
      method: 'POST',
      credentials: 'same-origin',
      headers: { 'content-type': 'application/json', accept: 'application/json', 'x-csrf-token': csrf },
      body: JSON.stringify(body || {}),
    });
    var data = null;
    try { data = await res.json(); } catch (e) { data = null; }
    return { status: res.status, ok: res.ok, data: data };
  }

  function browserMessage(error) {
    var name = error && error.name;
    if (name === 'AbortError') return null;
    if (name === 'NotAllowedError') return 'The passkey request was cancelled or timed out.';
    if (name === 'InvalidStateError' || (error && error.code === 'ERROR_AUTHENTICATOR_PREVIOUSLY_REGISTERED')) return 'This passkey is already registered to your account.';
    if (name === 'SecurityError') return 'Passkeys do not work at this address. Ask the site owner to check APP_URL.';
    return 'Your browser could not use a passkey.';
  }

  var busy = false;

  async function signIn(button, conditional) {
    var csrf = csrfFor(button);
    var options = await post('/passkeys/login/options', {}, csrf);
    if (!options.ok) {
      if (!conditional) say((options.data && options.data.message) || 'Could not start the passkey sign-in.');
      return 'failed';
    }
    var assertion;
    try {
      assertion = await lib.startAuthentication({ optionsJSON: options.data, useBrowserAutofill: conditional });
    } catch (error) {
      var message = browserMessage(error);
      if (message && !conditional) say(message);
      return 'cancelled';
    }
    if (!conditional) say('Signing in\u2026');
    var result = await post('/passkeys/login', { response: assertion, next: nextFor(button) }, csrf);
    if (result.ok && result.data && result.data.redirect) {
      location.assign(result.data.redirect);
      return 'done';
    }
    say((result.data && result.data.message) || 'The passkey sign-in failed. Please try again.');
    return 'failed';
  }

  async function autofill() {
    if (!document.querySelector('input[autocomplete$="webauthn"]')) return;
    if (!(await lib.browserSupportsWebAuthnAutofill())) return;
    // Offered again after a refused answer (an expired challenge, say), not after a cancellation.
    for (var i = 0; i < 3; i++) {
      if ((await signIn(document.querySelector('button[data-passkey-login]'), true)) !== 'failed') return;
    }
  }

  async function register(button) {
    var form = button.form;
    var csrf = csrfFor(button);
    var options = await post('/passkeys/register/options', {}, csrf);
    if ((options.status === 423 || (options.status === 403 && options.data && (options.data.code === 'E_MFA_REQUIRED' || options.data.code === 'E_EMAIL_NOT_VERIFIED'))) && form) {
      // The password has to be confirmed, a second factor shown or the address verified first:
      // the plain form goes there (and comes back).
      form.submit();
      return;
    }
    if (options.status === 401) {
      location.assign('/login');
      return;
    }
    if (!options.ok) {
      say((options.data && options.data.message) || 'Could not start adding a passkey.');
      return;
    }
    var attestation;
    try {
      attestation = await lib.startRegistration({ optionsJSON: options.data });
    } catch (error) {
      say(browserMessage(error) || 'The passkey request was cancelled.');
      return;
    }
    var nameField = form && form.elements.name;
    say('Saving the passkey\u2026');
    var result = await post('/passkeys/register', { response: attestation, name: nameField ? nameField.value : '' }, csrf);
    if (result.ok) {
      location.assign(location.pathname);
      return;
    }
    say((result.data && result.data.message) || 'The passkey could not be saved.');
  }

  function run(task) {
    if (busy) return;
    busy = true;
    task().catch(function () { say('Something went wrong. Please try again.'); }).then(function () { busy = false; });
  }

  document.querySelectorAll('[data-passkey-offer]').forEach(function (element) {
    element.hidden = false;
  });
  document.querySelectorAll('button[data-passkey-login]').forEach(function (button) {
    button.hidden = false;
    button.addEventListener('click', function (event) {
      event.preventDefault();
      run(function () {
        return signIn(button, false).then(function (outcome) {
          // Not signed in: the autofill offer (which the prompt cancelled) comes back.
          if (outcome !== 'done') autofill().catch(function () { return undefined; });
        });
      });
    });
  });
  document.querySelectorAll('button[data-passkey-register]').forEach(function (button) {
    button.addEventListener('click', function (event) {
      event.preventDefault();
      run(function () { return register(button); });
    });
  });
  autofill().catch(function () { return undefined; });
})();
`
