// Building DOM nodes without HTML strings: every value from the API becomes text, never markup,
// so nothing a user names (a Space, a note) can inject script.

// h('a', {href: '#/'}, 'text', child...): attributes; "on<event>" values are listeners; true
// sets a boolean attribute, false/null/undefined leave it out. Children may be nested arrays.
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k.startsWith('on') && typeof v === 'function') el.addEventListener(k.slice(2), v);
    else if (v === true) el.setAttribute(k, '');
    else if (v !== false && v != null) el.setAttribute(k, String(v));
  }
  for (const c of children.flat(Infinity)) {
    if (c == null || c === false) continue;
    el.append(c instanceof Node ? c : String(c));
  }
  return el;
}

// An API error, as the API words it, placed where the failed thing is.
export function errorText(err) {
  return h('p', {class: 'error', role: 'alert'}, err && err.message ? err.message : String(err));
}

// The RFC 3339 time `at` as the viewer's local time ('' stays '').
export function when(at) {
  if (!at) return '';
  const d = new Date(at);
  return isNaN(d) ? at : d.toLocaleString();
}

// Replaces the children of `el` with `children`.
export function fill(el, ...children) {
  el.replaceChildren();
  for (const c of children.flat(Infinity)) if (c != null && c !== false) el.append(c);
  return el;
}
