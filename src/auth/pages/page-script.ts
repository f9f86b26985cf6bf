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
 *   element named by its `data-strength` attribute, estimated in the browser: length, variety,
 *   repeats, sequences, keyboard rows, and the most common passwords (`COMMON`, prepended by the
 *   bundle). The server's rules (length, the full common-password list) still decide.
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

  var ROWS = ['qwertyuiop', 'asdfghjkl', 'zxcvbnm', 'azertyuiop', 'qwertzuiop', '1234567890', 'abcdefghijklmnopqrstuvwxyz'];
  var LEET = { '0': 'o', '1': 'l', '3': 'e', '4': 'a', '5': 's', '7': 't', '@': 'a', '$': 's', '!': 'i' };

  function isRun(s) {
    if (s.length < 3) return false;
    for (var i = 0; i < ROWS.length; i++) {
      var row = ROWS[i];
      if (row.indexOf(s) !== -1 || row.split('').reverse().join('').indexOf(s) !== -1) return true;
    }
    return false;
  }

  /** A rough guess count in bits: variety times length, less what patterns give away. */
  function bits(password) {
    var lower = password.toLowerCase();
    var plain = lower.replace(/[0134579@$!]/g, function (c) { return LEET[c] || c; });
    var core = plain.replace(/^[^a-z]+|[^a-z]+$/g, '');
    if (COMMON.has(lower) || COMMON.has(plain) || (core.length >= 4 && COMMON.has(core))) return Math.min(10, password.length);
    var pool = 0;
    if (/[a-z]/.test(password)) pool += 26;
    if (/[A-Z]/.test(password)) pool += 26;
    if (/[0-9]/.test(password)) pool += 10;
    if (/[^a-zA-Z0-9]/.test(password)) pool += 33;
    var effective = 0;
    var i = 0;
    while (i < lower.length) {
      // A repeated character or a keyboard/alphabet run counts as little more than its start.
      var j = i + 1;
      while (j < lower.length && lower[j] === lower[i]) j++;
      if (j - i >= 3) { effective += 1.5; i = j; continue; }
      var k = i + 3;
      if (k <= lower.length && isRun(lower.slice(i, k))) {
        while (k < lower.length && isRun(lower.slice(i, k + 1))) k++;
        effective += 1.5;
        i = k;
        continue;
      }
      effective += 1;
      i++;
    }
    return effective * Math.log2(Math.max(pool, 10));
  }

  var LEVELS = [
    [28, 'Very weak', 'Easy to guess: use a longer passphrase of several unrelated words.'],
    [40, 'Weak', 'Add another word or two.'],
    [60, 'Fair', 'Good enough for most sites; a longer passphrase is better.'],
    [80, 'Strong', 'Hard to guess.'],
    [Infinity, 'Very strong', 'Very hard to guess.']
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
      var score = bits(value);
      var level = 0;
      while (score >= LEVELS[level][0]) level++;
      meter.value = level;
      words.textContent = 'Strength: ' + LEVELS[level][1] + '. ' + LEVELS[level][2];
      out.hidden = false;
    }
    input.addEventListener('input', update);
    update();
  });
})();
`
