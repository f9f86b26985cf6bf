/**
 * @module auth/pages/page-script
 * The auth pages' small script, served as `GET /auth/pages.js` (an external file, so a
 * Content-Security-Policy without `'unsafe-inline'` allows it). Without it every page still
 * works; with it:
 *
 * - `[data-copy="<id>"]` buttons copy the text of the element `<id>` (the recovery codes) and say
 *   so in `[data-copy-status]`; `[data-print]` buttons print the page. Both are `hidden` until the
 *   script shows them.
 * - `input[data-strength]`: a password field gets a strength hint (a meter and a sentence) in the
 *   element named by its `data-strength` attribute, estimated in the browser by zxcvbn
 *   (`ZXCVBN`, defined by the bundle, page-bundle.ts, and made when the field is first focused
 *   or holds a value): common passwords and words, repeats, sequences, keyboard patterns, dates.
 *   The server's rules (length, the common-password list) still decide.
 */
export const PAGE_SCRIPT = String.raw`
(function () {
  'use strict';

  function show(el) { el.hidden = false; }

  document.querySelectorAll('[data-print]').forEach(function (button) {
    show(button);
    button.addEventListener('click', function () { window.print(); });
  });

  document.querySelectorAll('[data-copy]').forEach(function (button) {
    if (!navigator.clipboard) return;
    show(button);
    button.addEventListener('click', function () {
      var source = document.getElementById(button.getAttribute('data-copy'));
      var status = document.querySelector('[data-copy-status]');
      var text = source ? (source.getAttribute('data-text') || source.textContent || '').trim() : '';
      navigator.clipboard.writeText(text).then(function () {
        if (status) status.textContent = 'Copied to the clipboard.';
      }, function () {
        if (status) status.textContent = 'Could not copy: select the codes and copy them yourself.';
      });
    });
  });

  // zxcvbn's score, 0 to 4.
  var LEVELS = [
    ['Very weak', 'Easy to guess: use a longer passphrase of several unrelated words.'],
    ['Weak', 'Add another word or two.'],
    ['Fair', 'Good enough for most sites; a longer passphrase is better.'],
    ['Strong', 'Hard to guess.'],
    ['Very strong', 'Very hard to guess.']
  ];

  document.querySelectorAll('input[data-strength]').forEach(function (input) {
    var out = document.getElementById(input.getAttribute('data-strength'));
    if (!out) return;
    var meter = document.createElement('meter');
    meter.min = 0; meter.max = 4; meter.low = 1.5; meter.high = 2.5; meter.optimum = 4;
    meter.setAttribute('aria-hidden', 'true');
    var words = document.createElement('span');
    out.appendChild(meter);
    out.appendChild(words);
    function update() {
      var value = input.value;
      if (!value) { out.hidden = true; return; }
      // Past 100 characters the estimate is slow and the answer no longer in doubt.
      var level = Math.max(0, Math.min(4, ZXCVBN.check(value.slice(0, 100)).score));
      meter.value = level;
      words.textContent = 'Strength: ' + LEVELS[level][0] + '. ' + LEVELS[level][1];
      out.hidden = false;
    }
    input.addEventListener('input', update);
    // Made while the person starts typing, not at the first character.
    input.addEventListener('focus', function () { setTimeout(ZXCVBN.prepare, 0); }, { once: true });
    update();
  });
})();
`
