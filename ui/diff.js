// A Unit's change as DiffUnit reports it: one row per mutation (the merge path, Add / Replace
// / Remove, the value before and after). Values are text; the kind is written out as well as
// coloured, so the colour is never the only sign.
import {h} from './dom.js';
import {stackable, thead} from './widgets.js';

const SIGN = {Add: '+', Remove: '−', Replace: '~'};

function value(v, cls) {
  if (v === undefined || v === '') return h('td', {class: `${cls} none`}, '—');
  return h('td', {class: cls}, h('pre', {}, v));
}

// `diff` is a DiffUnitResponse; `unit` names the section.
export function unitDiff(unit, diff) {
  const muts = diff.Mutations || [];
  const range = `revision ${diff.FromRevisionNum} → ${diff.ToRevisionNum}`;
  return h('section', {class: 'unit-diff', 'data-unit': unit, 'aria-label': `Unit ${unit}`},
    h('h3', {}, unit, ' ', h('span', {class: 'mode'}, range)),
    muts.length === 0 ? h('p', {}, 'The change leaves this Unit as it was.') :
      h('div', {class: 'scroll'}, stackable(h('table', {class: 'diff'},
        h('caption', {}, `${muts.length} change(s) in ${unit}`),
        thead('', 'Path', 'Before', 'After'),
        h('tbody', {}, muts.map((m) => h('tr', {class: `mut ${(m.Kind || '').toLowerCase()}`},
          h('td', {class: 'kind', title: m.Kind}, `${SIGN[m.Kind] || ''} ${m.Kind}`),
          h('th', {scope: 'row', class: 'path'}, h('code', {}, m.Path)),
          value(m.OldValue, 'old'), value(m.NewValue, 'new'))))))));
}
