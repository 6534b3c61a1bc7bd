"""Every control of a static page, used once: it changes what the learner sees, or it is greyed out
with the line that says why.

:func:`use_every_control` runs in the page (no round trip per control: a page takes well under a
second). For each gradkit widget, every control (button, drop-down, check box, slider, text box)
that is enabled and on screen is used as a learner would (a click; the next option the page
offers; a key step along a slider; a new value typed and Enter), one after another in page order,
a widget's drop-downs last (another function may leave the other controls nothing saved to show).
What the widget shows is compared before and after: its text (readouts, messages, button words
and pressed states; not a control's own echo of its value, ``.gk-value``, nor which controls are
greyed out) and the pixels of its picture; an echo that moved with a new picture drawn for the
new value counts too (the picture may look alike). A control greyed out, when the page opens or
after an earlier use, must sit in a part marked as needing the kernel (``.gk-needs-kernel``)
under the widget's visible line saying so; one its widget disabled by its own words ("No more
hints") is left alone.
"""

from __future__ import annotations

__all__ = ["PROBE_JS", "use_every_control"]

#: The page's own script: returns {used, dead, greyed, unexplained}.
PROBE_JS = r"""async () => {
  const frame = () => new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)));
  const style = document.createElement('style');
  style.textContent = '.gk-probing .gk-value { display: none !important; }';
  document.head.append(style);
  const seen = (node) => node.offsetParent !== null;
  const pixels = (root) => {
    let sum = 0;
    for (const c of root.querySelectorAll('canvas')) {
      if (!c.width || !c.height || c.closest('[hidden]')) continue;
      const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
      for (let i = 0; i < d.length; i += 4) {
        sum = (sum * 31 + d[i] + 7 * d[i + 1] + 13 * d[i + 2] + d[i + 3]) % 1000000007;
      }
    }
    return sum;
  };
  // what the widget shows: its text without the controls' own echo of their value, the buttons'
  // words and pressed states (not whether one is greyed out), its picture; and apart, the echo
  // with the state last drawn (an echo that moved with a new picture drawn for it counts, even
  // where the picture looks alike)
  const looks = (root) => {
    root.classList.add('gk-probing');
    const text = root.innerText;
    root.classList.remove('gk-probing');
    const buttons = [...root.querySelectorAll('button')].filter(seen)
      .map((b) => `${b.textContent}|${b.getAttribute('aria-pressed')}`); // not greyed or not
    const figure = root.querySelector('.gradkit-figure') || { dataset: {} };
    const echo = [...root.querySelectorAll('.gk-value')].map((v) => v.textContent);
    return { seen: JSON.stringify([text, buttons, pixels(root)]), echo: JSON.stringify(echo),
      drawn: `${figure.dataset.paints}|${figure.dataset.state}` };
  };
  const changed = (a, b) => a.seen !== b.seen || (a.echo !== b.echo && a.drawn !== b.drawn);
  const name = (root, node) => {
    const title = (root.querySelector('.gk-title') || {}).textContent || root.className;
    const what = node.className || node.getAttribute('aria-label') || node.tagName;
    const words = (node.textContent || node.value || '').slice(0, 30);
    return `${title.slice(0, 60)} :: ${node.tagName.toLowerCase()}.${what} ${words}`;
  };
  const typed = (input) => {
    if (!input.classList.contains('gradkit-eps-text')) return '1';
    const eps = Number(input.value);
    return String(eps * 10 <= 1 ? eps * 10 : eps / 10);
  };
  const use = async (node) => {
    const tag = node.tagName.toLowerCase();
    if (tag === 'select') {
      const next = [...node.options].findIndex((o, i) => i > node.selectedIndex && !o.disabled);
      node.selectedIndex = next >= 0 ? next : [...node.options].findIndex((o) => !o.disabled);
      node.dispatchEvent(new Event('change', { bubbles: true }));
    } else if (tag === 'input' && node.type === 'range') {
      const key = Number(node.value) < Number(node.max) ? 'ArrowRight' : 'ArrowLeft';
      node.dispatchEvent(new KeyboardEvent('keydown', { key, bubbles: true }));
    } else if (tag === 'input' && node.type === 'text') {
      node.focus();
      node.value = typed(node);
      node.dispatchEvent(new KeyboardEvent('keydown', { key: 'Enter', bubbles: true }));
      node.blur();
      node.dispatchEvent(new Event('change', { bubbles: true }));
    } else node.click();
    await frame();
  };
  const out = { used: [], dead: [], greyed: [], unexplained: [] };
  const explain = (root, node) => {
    const note = root.querySelector('.gk-greyed-note');
    const ok = node.closest('.gk-needs-kernel') && note && seen(note);
    (ok ? out.greyed : out.unexplained).push(name(root, node));
  };
  for (const root of document.querySelectorAll('.gk-site-widget > .gradkit-widget')) {
    const all = [...root.querySelectorAll('input, select, button')].filter(seen);
    for (const node of all.filter((c) => c.disabled)) explain(root, node);
    // a menu last: a new function may leave other controls with nothing saved to show
    const menu = (c) => c.tagName === 'SELECT';
    const controls = [...all.filter((c) => !menu(c)), ...all.filter(menu)];
    for (const node of controls) {
      if (!seen(node) || node.getAttribute('aria-pressed') === 'true') continue; // gone, or shown
      if (node.disabled) { // greyed by an earlier use: it must say why, unless its own words do
        if (node.closest('.gk-needs-kernel')) explain(root, node);
        continue;
      }
      const error = root.querySelector('.gradkit-error');
      if (error) error.replaceChildren(); // a message said again counts as said
      const before = looks(root);
      await use(node);
      (changed(before, looks(root)) ? out.used : out.dead).push(name(root, node));
    }
  }
  style.remove();
  return out;
}"""


def use_every_control(page) -> dict[str, list[str]]:
    """Use every control of the page once (see the module's docstring); what became of each:
    ``used`` (the view changed), ``dead`` (it did not), ``greyed`` (greyed out with its line),
    ``unexplained`` (greyed out with no line saying why)."""
    return page.evaluate(PROBE_JS)
