// The "Provisional elements" list: every `x-provisional` element of the bundle with its decision and reason from
// spec/DECISIONS.md, plus the decision log's general decisions.
import { contractModel, type OpenApiDocument, type ProvisionalElement, referenceOf } from '@cls-api/spec';
import { forEachNode } from './walk.js';

export interface Decision {
  /** `G1`, or an element such as `operation listWmsOrders`, `parameter Size`, `schema Order`. */
  key: string;
  decision: string;
  reason: string;
}

export interface DecisionLog {
  general: Decision[];
  elements: Map<string, Decision>;
}

function cells(line: string): string[] {
  // Split on pipes that are not escaped; the log's cells hold no escaped pipes today, but one must not break a row.
  return line
    .replace(/^\|/, '')
    .replace(/\|\s*$/, '')
    .split(/(?<!\\)\|/)
    .map((c) => c.trim());
}

/** Parses the rows of spec/DECISIONS.md: `| G1 | decision | reason |` and `| \`schema X\` | decision | reason |`. */
export function parseDecisions(markdown: string): DecisionLog {
  const log: DecisionLog = { general: [], elements: new Map() };
  for (const line of markdown.split('\n')) {
    const general = /^\|\s*(G\d+)\s*\|/.exec(line);
    const element = /^\|\s*`((?:operation|parameter|schema) [A-Za-z0-9_][A-Za-z0-9_.[\]]*)`\s*\|/.exec(line);
    if (!general && !element) continue;
    const [, decision, reason] = cells(line);
    if (!decision || !reason) throw new Error(`spec/DECISIONS.md: a row without decision or reason: ${line}`);
    const entry = { key: (general ?? element)![1]!, decision, reason };
    if (general) log.general.push(entry);
    else log.elements.set(entry.key, entry);
  }
  return log;
}

export type { ProvisionalElement } from '@cls-api/spec';

/** Every `x-provisional` operation, component parameter and schema node of the bundle, from the contract model. */
export function provisionalElements(doc: OpenApiDocument): ProvisionalElement[] {
  return contractModel(doc).provisionalElements();
}

const cell = (text: string) => text.replace(/\|/g, '\\|').replace(/\s+/g, ' ').trim();

/**
 * The markdown appended to the "Provisional elements" guide. Throws when a marked element has no decision: the
 * list would otherwise show an element without its reason.
 */
export function renderProvisionalList(doc: OpenApiDocument, log: DecisionLog): string {
  const elements = provisionalElements(doc);
  const missing = elements.filter((e) => !log.elements.has(`${e.kind} ${e.name}`));
  if (missing.length > 0) {
    throw new Error(`spec/DECISIONS.md has no row for ${missing.map((e) => `${e.kind} ${e.name}`).join(', ')}`);
  }
  const section = (title: string, kind: ProvisionalElement['kind'], first: string) => {
    const rows = elements.filter((e) => e.kind === kind);
    if (rows.length === 0) return [];
    return [
      `### ${title}`,
      '',
      `| ${first} | Decision | Reason |`,
      '|---|---|---|',
      ...rows.map((e) => {
        const d = log.elements.get(`${e.kind} ${e.name}`)!;
        const label =
          kind === 'operation'
            ? `\`${e.where}\` (${e.name})`
            : kind === 'parameter'
              ? `${e.where} (${e.name})`
              : e.where;
        return `| ${cell(label)} | ${cell(d.decision)} | ${cell(d.reason)} |`;
      }),
      '',
    ];
  };
  return [
    '## Every provisional element',
    '',
    `This contract marks ${elements.length} elements \`x-provisional: true\`. Each is listed below with the decision`,
    'and its reason, as logged in `spec/DECISIONS.md`. The list is generated from the contract when this site is',
    'built.',
    '',
    ...section('Operations', 'operation', 'Operation'),
    ...section('Parameters', 'parameter', 'Parameter'),
    ...section('Schemas', 'schema', 'Schema'),
    '### General decisions',
    '',
    'Rules that apply across the contract rather than to one element.',
    '',
    '| # | Decision | Reason |',
    '|---|---|---|',
    ...log.general.map((d) => `| ${d.key} | ${cell(d.decision)} | ${cell(d.reason)} |`),
    '',
  ].join('\n');
}

/** The guide that explains provisional elements, by its page path on the site. */
export const PROVISIONAL_GUIDE_PATH = '/provisional-elements';

/**
 * The badge a provisional element carries on the site: one visible word that links to the guide explaining it.
 * Redoc shows the `x-provisional` extension itself only as raw `provisional: true`, which says nothing to a reader.
 */
export const PROVISIONAL_BADGE = `<a class="cls-provisional" href="${PROVISIONAL_GUIDE_PATH}" title="May change before the service confirms it: see Provisional elements">provisional</a>`;

type Node = Record<string, unknown>;
const isNode = (v: unknown): v is Node => typeof v === 'object' && v !== null && !Array.isArray(v);

function withBadge(node: Node): void {
  const description = typeof node.description === 'string' ? node.description : '';
  if (description.startsWith(PROVISIONAL_BADGE)) return;
  node.description = description ? `${PROVISIONAL_BADGE} ${description}` : PROVISIONAL_BADGE;
}

/**
 * Puts the badge at the start of the description of every `x-provisional` node of `doc` (operations, parameters,
 * schemas and their parts), in place. A `$ref` with a description of its own beside it shows that description
 * instead of its target's, so it carries the badge of a provisional target too. Returns how many badges it set.
 */
export function addProvisionalBadges(doc: OpenApiDocument): number {
  const schemas = (doc.components?.schemas ?? {}) as Record<string, unknown>;
  const provisionalRef = (ref: unknown): boolean => {
    const m = typeof ref === 'string' ? /^#\/components\/schemas\/([^/]+)$/.exec(ref) : null;
    const target = m ? schemas[m[1]!] : undefined;
    return isNode(target) && target['x-provisional'] === true;
  };
  let count = 0;
  const mark = (value: Node): void => {
    const marked = value['x-provisional'] === true;
    const overridesProvisionalRef = typeof value.description === 'string' && provisionalRef(referenceOf(value)?.$ref);
    if (marked || overridesProvisionalRef) {
      withBadge(value);
      count++;
    }
  };
  forEachNode([doc.paths, doc.components], mark);
  return count;
}
