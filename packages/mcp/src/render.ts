// The compact text a tool returns next to its structured result: what a model reads. One line per item of a list,
// scalar fields as `name: value`, nested values as compact JSON, so a page of 100 orders stays 100 lines.

const scalar = (v: unknown) => v === null || ['string', 'number', 'boolean'].includes(typeof v);

function line(item: unknown): string {
  if (scalar(item)) return String(item);
  if (typeof item !== 'object' || item === null) return JSON.stringify(item) ?? '';
  return Object.entries(item)
    .map(([k, v]) => `${k}: ${scalar(v) ? String(v) : JSON.stringify(v)}`)
    .join(', ');
}

function block(name: string | undefined, list: unknown[]): string[] {
  const head = `${name ? `${name}: ` : ''}${list.length} ${list.length === 1 ? 'item' : 'items'}`;
  return [head, ...list.map((item) => `- ${line(item)}`)];
}

export interface Pagination {
  page?: number;
  size?: number;
  total?: number;
  total_pages?: number;
  has_next?: boolean;
}

/** The text of a successful call: the envelope's `data` and, for a paged list, where the page is. */
export function renderResult(data: unknown, pagination?: Pagination): string {
  const lines: string[] = [];
  if (Array.isArray(data)) {
    lines.push(...block(undefined, data));
  } else if (typeof data === 'object' && data !== null) {
    const entries = Object.entries(data);
    const flat = entries.filter(([, v]) => !Array.isArray(v) || !v.some((x) => typeof x === 'object' && x !== null));
    if (flat.length > 0) lines.push(line(Object.fromEntries(flat)));
    for (const [k, v] of entries) {
      if (Array.isArray(v) && !flat.some(([f]) => f === k)) lines.push(...block(k, v));
    }
  } else if (data === undefined) {
    lines.push('(no data)');
  } else {
    lines.push(line(data));
  }
  if (pagination) {
    const { page, total_pages, total, size, has_next } = pagination;
    const next = has_next ? `; more: call again with page ${(page ?? 0) + 1}` : '';
    lines.push(`page ${page ?? '?'} of ${total_pages ?? '?'} (${total ?? '?'} in all, ${size ?? '?'} per page)${next}`);
  }
  return lines.join('\n');
}
