// Lists paged by the server (Limit / PageToken, docs/api.md "Paging"): the first page, then a
// "More" button while the API returns a NextPageToken. A page's refusal is shown, as the API
// words it, where the rows would have gone.
import {h, errorText, fill} from './dom.js';

// `fetchPage(pageToken)` resolves to {items, next}; `addRows(items)` appends them to the list
// it owns; `empty` is shown when the first page has nothing. `what` names the list for the
// button ("More Releases"). Returns {el, reload}: reload() starts again from the first page,
// keeping the rows shown until it arrives (a poll does not flicker).
export function pager({fetchPage, addRows, clear, empty, what, onError}) {
  const status = h('div', {class: 'pager-status', 'aria-live': 'polite'});
  const more = h('button', {type: 'button', class: 'more', hidden: true}, `More ${what}`);
  let next = '';
  let generation = 0;  // a reload while a page is on its way drops that page
  const load = async (token) => {
    const mine = generation;
    more.disabled = true;
    try {
      const page = await fetchPage(token);
      if (mine !== generation) return;
      if (!token) clear();  // the rows shown stay until the new first page replaces them
      if (!token && page.items.length === 0) fill(status, h('p', {class: 'empty'}, empty));
      else fill(status);
      addRows(page.items);
      next = page.next || '';
      more.hidden = !next;
    } catch (err) {
      if (mine !== generation) return;
      if (onError && onError(err)) return;
      fill(status, errorText(err));
    } finally {
      more.disabled = false;
    }
  };
  more.addEventListener('click', () => load(next));
  const reload = () => {
    generation++;
    return load('');
  };
  return {el: h('div', {class: 'pager'}, status, more), reload};
}
