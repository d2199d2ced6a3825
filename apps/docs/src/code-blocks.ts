// The code blocks of a markdown text (a guide, a package README) as samples a reader would run. A shell or
// TypeScript block is a sample, run as written; any other block (a JSON response, a text report) is shown output.
// An HTML comment right before a block says what else it is; the site does not show it:
//
//   <!-- sample: setup -->                        the variables a reader sets by hand (keys); the runner supplies
//                                                 them, and checks that it supplies every one the block sets
//   <!-- sample: expect 403 AUTH_FORBIDDEN -->     a call that fails on purpose, with the status and code it gets
//   <!-- sample: prints <text> -->                 runs, and its output must contain <text> (on every run)
//   <!-- sample: not runnable: <reason> -->       shown but never run; the reason is required

export type SampleLanguage = 'shell' | 'typescript' | 'other';

export type SampleMark =
  | { kind: 'run' }
  | { kind: 'setup' }
  | { kind: 'expect'; status: number; code: string }
  | { kind: 'prints'; text: string }
  | { kind: 'not-runnable'; reason: string };

export interface CodeBlock {
  /** The fence's info string: `bash`, `typescript`, `json` … */
  info: string;
  language: SampleLanguage;
  source: string;
  /** 1-based line of the opening fence. */
  line: number;
  mark: SampleMark;
}

const SHELL = new Set(['bash', 'sh', 'shell', 'console']);
const TYPESCRIPT = new Set(['typescript', 'ts']);

function languageOf(info: string): SampleLanguage {
  const word = info.trim().split(/\s+/)[0]!.toLowerCase();
  if (SHELL.has(word)) return 'shell';
  if (TYPESCRIPT.has(word)) return 'typescript';
  return 'other';
}

/** The mark of `<!-- sample: … -->`; throws on a mark it does not know, so a typo never silences a sample. */
export function parseMark(comment: string): SampleMark {
  const text = comment.trim();
  if (text === 'setup') return { kind: 'setup' };
  const expect = /^expect (\d{3}) ([A-Z][A-Z0-9_]*)$/.exec(text);
  if (expect) return { kind: 'expect', status: Number(expect[1]), code: expect[2]! };
  const prints = /^prints (\S.*)$/.exec(text);
  if (prints) return { kind: 'prints', text: prints[1]!.trim() };
  const notRunnable = /^not runnable: (\S.*)$/.exec(text);
  if (notRunnable) return { kind: 'not-runnable', reason: notRunnable[1]!.trim() };
  throw new Error(`unknown sample mark "<!-- sample: ${text} -->"`);
}

/** Every fenced code block of `markdown`, in order, with the sample mark written right before it. */
export function codeBlocks(markdown: string): CodeBlock[] {
  const lines = markdown.split('\n');
  const blocks: CodeBlock[] = [];
  let pending: SampleMark | undefined;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const mark = /^<!--\s*sample:\s*(.*?)\s*-->\s*$/.exec(line);
    if (mark) {
      pending = parseMark(mark[1]!);
      continue;
    }
    const fence = /^(\s*)(`{3,}|~{3,})(.*)$/.exec(line);
    if (!fence) {
      if (line.trim() !== '') pending = undefined;
      continue;
    }
    const [, indent, marker, info] = fence;
    const body: string[] = [];
    let j = i + 1;
    for (; j < lines.length; j++) {
      const close = lines[j]!.trim();
      if (close.startsWith(marker!) && close.replace(/[`~]/g, '') === '') break;
      body.push(indent && lines[j]!.startsWith(indent) ? lines[j]!.slice(indent.length) : lines[j]!);
    }
    blocks.push({
      info: info!.trim(),
      language: languageOf(info!),
      source: `${body.join('\n')}\n`,
      line: i + 1,
      mark: pending ?? { kind: 'run' },
    });
    pending = undefined;
    i = j;
  }
  return blocks;
}

/** The variables a setup block exports (`export NAME=…`). */
export function exportedNames(source: string): string[] {
  return [...source.matchAll(/^\s*export\s+([A-Za-z_][A-Za-z0-9_]*)=/gm)].map((m) => m[1]!);
}
