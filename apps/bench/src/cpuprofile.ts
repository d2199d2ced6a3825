// Reading a V8 .cpuprofile (what `node --cpu-prof` writes): self time per function and per origin (which package
// or layer the code belongs to), optionally only for samples inside a time window.

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
}

interface ProfileNode {
  id: number;
  callFrame: CallFrame;
}

export interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

export interface SelfTime {
  name: string;
  origin: string;
  /** Share of the busy (not idle) samples in the window. */
  share: number;
  ms: number;
}

export interface ProfileSummary {
  /** Wall time the window covers, ms. */
  windowMs: number;
  /** Share of the window in which the process was running JavaScript, native code or GC (not idle). */
  busyShare: number;
  /** Whether the window could be applied (the profile's clock matched the harness's); otherwise whole profile. */
  windowed: boolean;
  topFunctions: SelfTime[];
  byOrigin: Array<{ origin: string; share: number }>;
  byLayer: Array<{ layer: string; share: number }>;
}

const SPECIAL: Record<string, string> = {
  '(garbage collector)': 'V8: garbage collection',
  '(program)': 'V8: native (program)',
  '(idle)': 'idle',
  '(root)': 'idle',
};

/** Which layer a frame belongs to, from its script URL. */
export function originOf(frame: CallFrame): string {
  const special = SPECIAL[frame.functionName];
  if (special && frame.url === '') return special;
  const url = frame.url;
  // Native code called from JavaScript is counted in its JavaScript caller; this is native work with no JS frame.
  if (url === '') return 'native, no JavaScript frame (sockets, …)';
  if (url.startsWith('node:')) return `node: ${url.replace(/^node:(internal\/)?/, '').split('/')[0]}`;
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)\/(?!.*node_modules\/)/.exec(url);
  if (pkg) {
    const name = pkg[1]!;
    return name.startsWith('@cls-api/') ? `${name} (workspace)` : name;
  }
  const app = /\/(apps|packages)\/([^/]+)\/(?:dist|src)\/(.*)$/.exec(url);
  if (app) return `${app[1]}/${app[2]}`;
  return 'other';
}

/** The layers of a server request, for a coarser view than packages. */
export const LAYERS = {
  sqlite: "SQLite (better-sqlite3 and the reference's store classes)",
  reference: 'reference: hooks, routes, domain (not its stores)',
  fastify: 'Fastify and its dependencies',
  validation: 'Ajv',
  node: 'Node: HTTP, streams, sockets, crypto',
  v8: 'V8: garbage collection and runtime',
  other: 'other',
} as const;

const FASTIFY_PACKAGES =
  /^(fastify|@fastify\/.*|find-my-way|avvio|fast-json-stringify|fast-querystring|light-my-request|abstract-logging|process-warning|toad-cache|rfdc|fast-decode-uri-component|safe-regex2|ret|json-schema-ref-resolver|fast-uri)$/;

export function layerOf(frame: CallFrame): string {
  const origin = originOf(frame);
  if (origin === 'idle') return origin;
  if (origin.startsWith('V8:')) return LAYERS.v8;
  if (origin.startsWith('native') || origin.startsWith('node:')) return LAYERS.node;
  if (
    origin === 'better-sqlite3' ||
    /apps\/reference\/(?:dist|src)\/(?:store\/|domain\/sqlite-store\.)/.test(frame.url)
  )
    return LAYERS.sqlite;
  if (origin === 'apps/reference') return LAYERS.reference;
  if (origin === 'ajv' || origin === 'ajv-formats') return LAYERS.validation;
  if (FASTIFY_PACKAGES.test(origin)) return LAYERS.fastify;
  return LAYERS.other;
}

function shortName(frame: CallFrame): string {
  const fn = frame.functionName || '(anonymous)';
  const url = frame.url.replace(/^file:\/\//, '');
  const file =
    /node_modules\/((?:@[^/]+\/)?[^/]+\/(?!.*node_modules\/).*)$/.exec(url)?.[1] ??
    /\/((?:apps|packages)\/[^/]+\/(?:dist|src)\/.*)$/.exec(url)?.[1] ??
    url;
  return file ? `${fn} (${file}:${frame.lineNumber + 1})` : fn;
}

/**
 * Self time by function and by origin. `window` (microseconds on the profile's clock) keeps only samples taken
 * inside it; when it does not overlap the profile at all, the whole profile is summarised instead.
 */
export function summarizeProfile(
  profile: CpuProfile,
  top: number,
  window?: { fromUs: number; toUs: number },
): ProfileSummary {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  let from = profile.startTime;
  let to = profile.endTime;
  let windowed = false;
  if (window && window.fromUs < profile.endTime && window.toUs > profile.startTime) {
    from = Math.max(from, window.fromUs);
    to = Math.min(to, window.toUs);
    windowed = true;
  }
  const perFunction = new Map<string, { frame: CallFrame; us: number }>();
  const perOrigin = new Map<string, number>();
  const perLayer = new Map<string, number>();
  let busyUs = 0;
  let t = profile.startTime;
  for (let i = 0; i < profile.samples.length; i++) {
    t += profile.timeDeltas[i] ?? 0;
    if (t < from || t > to) continue;
    // A sample's time is attributed to the interval up to the next sample.
    const dt = profile.timeDeltas[i + 1] ?? 0;
    const node = byId.get(profile.samples[i]!);
    if (!node) continue;
    const origin = originOf(node.callFrame);
    if (origin === 'idle') continue;
    busyUs += dt;
    perOrigin.set(origin, (perOrigin.get(origin) ?? 0) + dt);
    const layer = layerOf(node.callFrame);
    perLayer.set(layer, (perLayer.get(layer) ?? 0) + dt);
    const key = shortName(node.callFrame);
    const entry = perFunction.get(key) ?? { frame: node.callFrame, us: 0 };
    entry.us += dt;
    perFunction.set(key, entry);
  }
  const windowUs = Math.max(1, to - from);
  const share = (us: number) => (busyUs > 0 ? us / busyUs : 0);
  return {
    windowMs: windowUs / 1000,
    busyShare: busyUs / windowUs,
    windowed,
    topFunctions: [...perFunction]
      .sort((a, b) => b[1].us - a[1].us)
      .slice(0, top)
      .map(([name, { frame, us }]) => ({ name, origin: originOf(frame), share: share(us), ms: us / 1000 })),
    byOrigin: [...perOrigin].sort((a, b) => b[1] - a[1]).map(([origin, us]) => ({ origin, share: share(us) })),
    byLayer: [...perLayer].sort((a, b) => b[1] - a[1]).map(([layer, us]) => ({ layer, share: share(us) })),
  };
}

/** A layer's CPU per request: its share of the busy time, spread over the requests answered in the window. */
export interface LayerCost {
  layer: string;
  usPerRequest: number;
}

/**
 * What each layer costs a request: the busy time of the summarised window divided by the `requests` answered in it,
 * split by the layers' shares. Zero requests cost nothing measurable: an empty list.
 */
export function costPerRequest(summary: ProfileSummary, requests: number): { busyUs: number; byLayer: LayerCost[] } {
  if (requests <= 0) return { busyUs: 0, byLayer: [] };
  const busyUs = (summary.busyShare * summary.windowMs * 1000) / requests;
  return { busyUs, byLayer: summary.byLayer.map((l) => ({ layer: l.layer, usPerRequest: l.share * busyUs })) };
}

/** What `over` costs a request beyond `base`, layer by layer (a layer either lacks costs nothing), most first. */
export function layerDifference(
  over: readonly LayerCost[],
  base: readonly LayerCost[],
): Array<{ layer: string; overUs: number; baseUs: number; differenceUs: number }> {
  const layers = [...new Set([...over, ...base].map((l) => l.layer))];
  const of = (costs: readonly LayerCost[], layer: string) => costs.find((l) => l.layer === layer)?.usPerRequest ?? 0;
  return layers
    .map((layer) => {
      const overUs = of(over, layer);
      const baseUs = of(base, layer);
      return { layer, overUs, baseUs, differenceUs: overUs - baseUs };
    })
    .sort((a, b) => b.differenceUs - a.differenceUs);
}
