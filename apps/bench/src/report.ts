// BENCHMARKS.md: written by the harness from a run's results, never by hand.
import { fmt } from './context.js';
import { layerDifference } from './cpuprofile.js';
import { SCENARIO_TITLES, SCENARIOS } from './options.js';
import type { BundleResult } from './scenarios/bundle.js';
import type { ClientResult } from './scenarios/client.js';
import type { DraftResult } from './scenarios/draft.js';
import type { BodiesPhase, BodiesResult } from './scenarios/bodies.js';
import { KIT_3_1, type KitResult, type KitRun } from './scenarios/kit.js';
import type { SilentResult } from './scenarios/silent.js';
import type { GetResult, GetServerKey } from './scenarios/get.js';
import type { PipelineResult } from './scenarios/pipeline.js';
import type { ProfileResult } from './scenarios/profile.js';
import { SCALE_TARGETS, type ScaleResult } from './scenarios/scale.js';
import { MISSED_TARGET_NOTES } from './notes.js';
import type { Report, TargetResult } from './results.js';

export type { Report, Results } from './results.js';

const pct = (n: number, digits = 0) => `${fmt(n * 100, digits)}%`;

function table(header: string[], rows: string[][], align?: Array<'l' | 'r'>): string {
  const sep = header.map((_, i) => ((align?.[i] ?? 'l') === 'r' ? '---:' : '---'));
  return [header, sep, ...rows].map((r) => `| ${r.join(' | ')} |`).join('\n');
}

function statusMark(status: TargetResult['status']): string {
  return {
    met: '✅ met',
    missed: '❌ missed',
    reported: 'ℹ️ reported',
    'not run': '— not run',
    invalid: '⚠️ invalid run',
  }[status];
}

function machineSection(r: Report): string {
  const m = r.machine;
  return [
    '## Machine',
    '',
    table(
      ['', ''],
      [
        ['CPU', `${m.cores} cores, ${m.cpuModel}`],
        ['Memory', `${fmt(m.memoryGiB, 1)} GiB (${fmt(m.freeMemoryGiB, 1)} GiB free at start)`],
        ['Node', m.node],
        ['OS', m.os],
        [
          'Load average (1, 5, 15 min) at start / at end',
          `${m.loadAverage.map((n) => fmt(n, 1)).join(', ')} / ${r.loadAverageAtEnd.map((n) => fmt(n, 1)).join(', ')}`,
        ],
        [
          'CPU time the host gave other guests during the run (steal)',
          r.stolenShare === undefined ? 'not known' : `${fmt(r.stolenShare * 100, 1)}%`,
        ],
        ['Run', `${m.startedAt} → ${r.finishedAt} (${fmt(r.durationSec)} s)`],
        [
          'Commit',
          r.commit ? `${r.commit.commit.slice(0, 12)}${r.commit.dirty ? ' with uncommitted changes' : ''}` : 'unknown',
        ],
      ],
    ),
    '',
    'The load generator (autocannon) runs in the harness process on the same machine as the servers, each server in ' +
      'a child process of its own. Numbers from a machine with other work on it are noisy: a 1-minute load average ' +
      `well above 1 (the harness alone) means other work shared the ${m.cores} cores; see also the spread over rounds. ` +
      'On a virtual machine, steal is time its cores wanted to run but the host ran other guests: a few percent ' +
      'or more means work outside the machine slowed the run, which its load average does not show.',
  ].join('\n');
}

function targetsSection(r: Report): string {
  const rows = r.targets.map((t) => [t.target, t.measured, statusMark(t.status)]);
  const out = ['## Targets', '', table(['Target', 'Measured', 'Status'], rows)];
  const missed = r.targets.filter((t) => t.status === 'missed');
  for (const t of missed) {
    const note = MISSED_TARGET_NOTES[t.id];
    if (note) out.push('', `**${t.target}: missed.** ${note(r)}`);
  }
  return out.join('\n');
}

function getSection(g: GetResult): string {
  const keys: GetServerKey[] = ['reference', 'bare', 'prism'];
  const s = g.servers;
  const spread = (k: GetServerKey) => {
    const rps = s[k].rounds.map((r) => r.rps);
    return `${fmt(Math.min(...rps))}–${fmt(Math.max(...rps))}`;
  };
  const rows = keys.map((k) => [
    `**${s[k].label}**`,
    fmt(s[k].median.rps),
    spread(k),
    fmt(s[k].median.p50Ms, 2),
    fmt(s[k].median.p99Ms, 2),
    fmt(s[k].peakRssMiB, 1),
    `${pct(s[k].median.serverCpu)} (${s[k].processes} process${s[k].processes === 1 ? '' : 'es'})`,
    fmt(s[k].median.serverCpuUsPerRequest),
    pct(s[k].median.loadGeneratorCpu),
    fmt(s[k].bodyBytes),
  ]);
  const perRound = keys.map((k) => [s[k].label, ...s[k].rounds.map((r) => fmt(r.rps))]);
  return [
    `## ${SCENARIO_TITLES.get}`,
    '',
    `\`${g.request}\`, the same request bytes to each server (a live key of a paid account, \`Accept: application/json\`, ` +
      `\`Prefer: example=first_page\`). ${g.connections} connections, no pipelining; ${fmt(g.warmupSec)} s warm-up per server, ` +
      `then ${g.rounds} rounds of ${fmt(g.roundSec)} s, interleaved (reference, bare, Prism, reference, …) so that machine ` +
      'noise hits all three alike. Every figure is the median over rounds; p50 and p99 are exact percentiles of every 2xx ' +
      'response of a round.',
    '',
    table(
      [
        'Server',
        'Requests/s',
        'Rounds min–max',
        'p50 ms',
        'p99 ms',
        'Peak RSS MiB',
        'Server CPU (of one core)',
        'Server CPU µs/request',
        'Load generator CPU',
        'Body bytes',
      ],
      rows,
      ['l', 'r', 'r', 'r', 'r', 'r', 'r', 'r', 'r', 'r'],
    ),
    '',
    table(
      ['Ratio (median of per-round ratios)', 'Requests/s', 'Server CPU per request'],
      [
        [
          'reference ÷ bare Fastify',
          `${fmt(g.ratios.referenceToBare, 2)} ×`,
          `**${fmt(g.cpuRatios.referenceToBare, 2)} ×**`,
        ],
        [
          'reference ÷ Prism mock',
          `${fmt(g.ratios.referenceToPrism, 1)} ×`,
          `**${fmt(g.cpuRatios.referenceToPrism, 1)} ×**`,
        ],
        ['bare Fastify ÷ Prism mock', `${fmt(g.ratios.bareToPrism, 1)} ×`, `${fmt(g.cpuRatios.bareToPrism, 1)} ×`],
      ],
      ['l', 'r', 'r'],
    ),
    '',
    "A server CPU ratio is the other server's CPU per request over the reference's, so that it reads like the " +
      'throughput ratio beside it: 0.50 × would mean the reference needs twice the CPU for a request. The GET targets ' +
      "are judged on it: it is what a request costs, whichever cores a server's processes can use.",
    '',
    '<details><summary>Requests/s per round</summary>',
    '',
    table(['Server', ...g.servers.reference.rounds.map((_, i) => `Round ${i + 1}`)], perRound),
    '',
    '</details>',
    '',
    ...keys.map((k) => `- **${s[k].label}**: ${s[k].description}.`),
    "- Peak RSS is the sum of the peak resident set (VmHWM) of the server's processes over its life, start-up included. " +
      "Server CPU comes from /proc (user + system time of the server's processes during each round).",
    g.valid
      ? '- Every measured response was 2xx (no throttling, no errors, no timeouts).'
      : `- ⚠️ Some responses were not 2xx or failed: these numbers are not valid. ${keys
          .filter((k) => s[k].failed > 0)
          .map(
            (k) =>
              `${s[k].label}: ${Object.entries(s[k].failures)
                .map(([what, n]) => `${fmt(n)} × ${what}`)
                .join(', ')}`,
          )
          .join('; ')}.`,
  ].join('\n');
}

/** The scale-out section; `cores` is the machine's, which every process of every target shares. */
export function scaleSection(g: ScaleResult, cores: number): string {
  const t = g.targets;
  const x = (n: number, digits = 2) => `${fmt(n, digits)} ×`;
  const spread = (rps: number[]) => `${fmt(Math.min(...rps))}–${fmt(Math.max(...rps))}`;
  const rows = SCALE_TARGETS.map((k) => [
    `**${t[k].label}**`,
    fmt(t[k].median.rps),
    spread(t[k].rounds.map((r) => r.rps)),
    fmt(t[k].median.p50Ms, 2),
    fmt(t[k].median.p99Ms, 2),
    fmt(t[k].median.serverCpuUsPerRequest),
    fmt(t[k].median.kernelUsPerRequest),
    t[k].parts.map((part) => `${part} ${fmt(t[k].median.cpuUsPerRequestByPart[part] ?? Number.NaN)}`).join(', '),
    k === 'bare' ? '1 (the ceiling)' : x(t[k].toBare, 3),
    k === 'bare' ? '1 (the ceiling)' : `**${x(t[k].cpuToBare, 3)}**`,
  ]);
  const perRound = SCALE_TARGETS.map((k) => [t[k].label, ...t[k].rounds.map((r) => fmt(r.rps))]);
  const off = Object.entries(g.hotPathOff)
    .map(([name, value]) => `${name}=${value}`)
    .join(' ');
  const failed = SCALE_TARGETS.filter((k) => t[k].failed > 0);
  return [
    `## ${SCENARIO_TITLES.scale}`,
    '',
    `\`${g.request}\` as in the \`get\` scenario, with the same headers (the live key is that of the paid demo ` +
      `account in each target's own database): ${g.connections} connections, no pipelining; ${fmt(g.warmupSec)} s warm-up per ` +
      `target, then ${g.rounds} rounds of ${fmt(g.roundSec)} s, interleaved (${SCALE_TARGETS.map((k) => t[k].label).join(', ')}, ` +
      'and again) so that machine noise hits every target alike. Every figure is the median over rounds; each ratio ' +
      'is the median over rounds of the ratio within one round. Server CPU is the user + system time, from /proc, of ' +
      "every process that serves the target's requests (its reference processes, and where they are the target's own " +
      "its PostgreSQL server with its backends, nginx and Redis), divided by the round's 2xx responses; its kernel " +
      "part (system time) is the network stack's work on loopback and the wake-ups of the process at the other end, " +
      'which cost a slower target more per request, since the load generator sleeps more often between its answers. The load ' +
      `generator and every server share this machine's ${cores} cores: a second instance adds processes that compete ` +
      'for the same cores, not cores, so nginx → 2 ÷ nginx → 1 is what that topology costs here, not how it scales ' +
      'with a machine per instance; likewise PostgreSQL and nginx take their CPU from the cores the reference runs on.',
    '',
    table(
      [
        'Target',
        'Requests/s',
        'Rounds min–max',
        'p50 ms',
        'p99 ms',
        'Server CPU µs/request',
        'of which kernel',
        'µs/request by process',
        'Requests/s ÷ bare Fastify',
        "Server CPU: bare Fastify's ÷ this",
      ],
      rows,
      ['l', 'r', 'r', 'r', 'r', 'r', 'r', 'l', 'r', 'r'],
    ),
    '',
    table(
      ['Ratio (median of per-round ratios)', 'Requests/s', 'Server CPU per request'],
      [
        ['SQLite: hot path on ÷ off', `**${x(g.hotPath.sqlite.throughput)}**`, x(g.hotPath.sqlite.cpuPerRequest)],
        [
          'PostgreSQL: hot path on ÷ off',
          `**${x(g.hotPath.postgres.throughput)}**`,
          x(g.hotPath.postgres.cpuPerRequest),
        ],
        ['nginx → 2 instances ÷ nginx → 1 instance', `**${x(g.scaleOut.twoToOne)}**`, ''],
        ['nginx → 1 instance ÷ PostgreSQL (the same instance, no proxy, no Redis)', x(g.scaleOut.proxiedToDirect), ''],
      ],
      ['l', 'r', 'r'],
    ),
    '',
    '<details><summary>Requests/s per round</summary>',
    '',
    table(['Target', ...t.bare.rounds.map((_, i) => `Round ${i + 1}`)], perRound),
    '',
    '</details>',
    '',
    ...SCALE_TARGETS.map(
      (k) =>
        `- **${t[k].label}**: ${t[k].description} (${t[k].processes} process${t[k].processes === 1 ? '' : 'es'} at the end, ${fmt(t[k].bodyBytes)} body bytes).`,
    ),
    `- Hot path off is \`${off}\`: the API-key lookup and the live key's usage write on every request, the "before" of ` +
      'issue 18. Hot path on is the default: keys cached for at most a second, live usage written in batches; the ' +
      'test-key quota stays exact either way (this run uses a live key).',
    '- The floors are what the GET costs on each engine when every layer of the reference costs nothing: the ' +
      "reference's own CPU per request above its floor is the price of its layers (gateway limit, auth, quota, " +
      'validation, views, envelope, serialization); the floor itself is the engine and HTTP.',
    '- Two targets of the table at the top are judged on these rounds: the reference on PostgreSQL against bare ' +
      "Fastify (its row's last column: bare Fastify's server CPU per request ÷ its own, paired round by round), and " +
      'nginx → 2 instances against the PostgreSQL target; the hot-path and scale-out ratios are reported. The ' +
      "floors' last column is what a server that reads the page through the same store and does nothing else " +
      'reaches against the same bound.',
    g.valid
      ? '- Every measured response was 2xx (no throttling, no errors, no timeouts).'
      : `- ⚠️ Some responses were not 2xx or failed: these numbers are not valid. ${failed
          .map(
            (k) =>
              `${t[k].label}: ${Object.entries(t[k].failures)
                .map(([what, n]) => `${fmt(n)} × ${what}`)
                .join(', ')}`,
          )
          .join('; ')}.`,
  ].join('\n');
}

function bodiesSection(b: BodiesResult): string {
  const row = (label: string, p: BodiesPhase) => [
    label,
    fmt(p.requests),
    fmt(p.p50Ms, 1),
    `**${fmt(p.p99Ms, 1)}**`,
    fmt(p.failed),
  ];
  return [
    `## ${SCENARIO_TITLES.bodies}`,
    '',
    `${fmt(b.others)} other clients, each from its own loopback address, send \`GET /v3/wms/suppliers\` every ` +
      `${fmt(b.otherIntervalMs)} ms; in alternate rounds (${fmt(b.rounds)} of each, ${fmt(b.roundSec)} s) one more ` +
      `client, in a worker thread of the harness, sends \`${b.request}\` bodies of ${fmt(b.rowsPerRequest)} rows, every free-text field and the order ` +
      `number at its maxLength, ${fmt(b.requestBytes)} bytes each (an ASCII-only encoder's \\uXXXX, pretty-printed), ` +
      `${fmt(b.largeConcurrency)} at ` +
      'once from one address, for the whole round. Both are measured in the same run, side by side.',
    '',
    table(
      ["Other clients' GETs", 'Requests', 'p50 ms', 'p99 ms', 'Not 200'],
      [row('without the large-body client', b.without), row('with it', b.with)],
      ['l', 'r', 'r', 'r', 'r'],
    ),
    '',
    `- p99 with ÷ without: **${fmt(b.p99Ratio, 2)} ×**.`,
    "- The harness's own event loop, which sends and times the other clients' calls, was delayed " +
      `${fmt(b.with.harnessLoopDelayP99Ms, 1)} ms at p99 (at most ${fmt(b.with.harnessLoopDelayMaxMs, 1)} ms) with ` +
      `the large-body client, ${fmt(b.without.harnessLoopDelayP99Ms, 1)} ms (at most ` +
      `${fmt(b.without.harnessLoopDelayMaxMs, 1)} ms) without: that much of their latency is the harness's.`,
    `- The large bodies' answers: ${Object.entries(b.largeStatuses)
      .map(([status, n]) => `${fmt(n)} × ${status}`)
      .join(', ')}; their own p50 ${fmt(b.largeP50Ms, 0)} ms, sent to answered, their wait for their turn included ` +
      '(the server serves one large body at a time per address). The same few bodies are sent again, so after the ' +
      'first round their rows are refused as duplicates inside a 200 answer: the server still reads, checks and ' +
      'parses every byte.',
  ].join('\n');
}

function silentSection(s: SilentResult): string {
  return [
    `## ${SCENARIO_TITLES.silent}`,
    '',
    `Each round makes ${fmt(s.callsPerRound)} calls of \`GET /health\` to the reference server, each on a connection of ` +
      `its own, ${s.concurrency} at a time: once with no other connection open, and once while ${fmt(s.held)} connections ` +
      'that have sent nothing are held open (from many loopback addresses, under the per-address cap), each first in ' +
      'turn. The server ' +
      'never closes a connection for how long it has been silent, so the ratio is what holding them costs every new ' +
      'arrival (1: they cost nothing). Held at end: those the server had not closed when the calls were done (it closes ' +
      'silent connections only when short of file descriptors).',
    '',
    table(
      ['Round', 'Calls/s, none held', 'Calls/s, held', 'Held at end', 'Held ÷ none', 'Failed'],
      s.rounds.map((r, i) => [
        String(i + 1),
        fmt(r.noneCallsPerSecond),
        fmt(r.heldCallsPerSecond),
        fmt(r.heldOpenAtEnd),
        `${fmt(r.heldCallsPerSecond / r.noneCallsPerSecond, 2)} ×`,
        fmt(r.failed),
      ]),
      ['r', 'r', 'r', 'r', 'r', 'r'],
    ),
    '',
    `Median ratio: ${fmt(s.ratio, 2)} ×.`,
  ].join('\n');
}

function kitSection(k: KitResult): string {
  const row = (label: string, r: KitRun) => [
    label,
    fmt(r.meteredByService),
    fmt(r.meteredByKit),
    fmt(r.requests),
    fmt(r.recordsLeft),
    `${fmt(r.wallMs / 1000, 1)} s`,
    `${r.passed} / ${r.failed} / ${r.skipped}`,
  ];
  return [
    `## ${SCENARIO_TITLES.kit}`,
    '',
    "The kit (`@cls-api/contract-tests`) as a partner's CI runs it, each run against a fresh reference server seeded " +
      'with the demo data (two sellers, test keys of every area, client credentials), paced as by default, seed ' +
      `${k.full.seed}. Metered: the service's own count of monthly test-key calls (X-RateLimit-Remaining before the ` +
      "first metered call minus after the last, both sellers); the kit's count includes 401/403 answers, which the " +
      'service does not meter. Records: what the run left in the test world (the contract deletes none).',
    '',
    table(
      [
        'Run',
        'Metered (service)',
        'Test-key calls (kit)',
        'Requests',
        'Records left',
        'Wall time',
        'Passed / failed / skipped',
      ],
      [
        row('4.0 full (`--profile full`)', k.full),
        row('4.0 pr (`--profile pr`)', k.pr),
        [
          '3.1 full (issue 23)',
          KIT_3_1.full.metered,
          '203',
          fmt(KIT_3_1.full.requests),
          KIT_3_1.full.records,
          KIT_3_1.full.wall,
          '—',
        ],
        ['3.1 `--read-only` (issue 23)', fmt(KIT_3_1.readOnlyMetered), '—', '—', '—', '—', '—'],
      ],
      ['l', 'r', 'r', 'r', 'r', 'r', 'l'],
    ),
  ].join('\n');
}

function draftSection(d: DraftResult): string {
  return [
    `## ${SCENARIO_TITLES.draft}`,
    '',
    `\`${d.request}\` with ${fmt(d.rowsPerRequest)} rows (the contract's \`maxItems\`), built from the contract's own request ` +
      'example with a new `mall_order_no` on every row, so that every row opens a draft (each response is checked: ' +
      `\`created_count\` ${fmt(d.rowsPerRequest)}, \`failed_count\` 0). One request at a time over one keep-alive ` +
      `connection, with a live key; ${d.warmupRequests} warm-up requests, then ${d.rounds.length} rounds of ` +
      `${d.rounds[0]?.requests ?? 0} requests.`,
    '',
    table(
      [
        'Engine',
        'p50 ms (median of rounds)',
        'p99 ms (all requests)',
        'Rows/s (median of rounds)',
        'Server CPU ms/request',
        'Peak RSS MiB',
        'Request / response bytes',
      ],
      [
        ['SQLite', d] as const,
        ...(d.postgres ? [['PostgreSQL (reference + database server CPU)', d.postgres] as const] : []),
      ].map(([engine, e]) => [
        engine,
        `**${fmt(e.p50Ms, 1)}**`,
        fmt(e.p99Ms, 1),
        fmt(e.rowsPerSecond),
        e.databaseCpuMsPerRequest === undefined
          ? fmt(e.serverCpuMsPerRequest, 1)
          : `${fmt(e.serverCpuMsPerRequest, 1)} (reference ${fmt(e.serverCpuMsPerRequest - e.databaseCpuMsPerRequest, 1)}, PostgreSQL ${fmt(e.databaseCpuMsPerRequest, 1)})`,
        fmt(e.peakRssMiB, 1),
        `${fmt(d.requestBytes)} / ${fmt(e.responseBytes)}`,
      ]),
      ['l', 'r', 'r', 'r', 'r', 'r', 'r'],
    ),
    '',
    'Measured: end-to-end latency from writing the request to reading the last byte of the response, as a client on ' +
      'the same machine sees it. It covers sending and parsing the JSON body, auth and quota counting, Ajv validation ' +
      'of every row against the contract, one database transaction that checks each row (repeats, existing drafts, ' +
      'products and options) and inserts it, and serializing the result rows. Rows/s is rows opened per second of ' +
      `wall time with requests one after another. p99 over ${d.measuredRequests} requests` +
      `${d.measuredRequests < 100 ? ' is the slowest of them' : ''}. Drafts accumulate during the run ` +
      `(${fmt(d.draftsBeforeLastRequest)} before the last request). The same bodies are then sent to a reference on a ` +
      "PostgreSQL database of its own (Debian's server, `fsync=off`), after the SQLite server has stopped" +
      `${d.postgresError ? `; that run failed: ${d.postgresError}` : ''}.`,
  ].join('\n');
}

function clientSection(c: ClientResult): string {
  return [
    `## ${SCENARIO_TITLES.client}`,
    '',
    `\`${c.request}\` against the reference server, from the harness process: ${c.rounds.length} rounds of ` +
      `${fmt(c.callsPerRound)} calls of each kind, one of each in turn with the order rotating (a b c d, b c d a, …) so ` +
      `that whatever else the machine does slows every kind alike, after ${fmt(c.warmupCalls)} warm-up calls each. ` +
      'Bare: `fetch(url, { headers })` ' +
      `then \`res.json()\`. Client: ${c.clientOptions}, \`client.GET(path, { params: { query } })\`, which also parses ` +
      "the body. Pacing is off because it would hold the calls to the contract's 30 per second and measure the gateway " +
      'limit, not the client; caching is off because a cached answer sends no request.',
    '',
    table(
      [
        'Bare fetch µs/call',
        'Client µs/call',
        'Overhead',
        'Overhead µs',
        'Caller CPU µs/call: fetch',
        'Caller CPU µs/call: client',
      ],
      [
        [
          fmt(c.fetchMedianUs),
          fmt(c.clientMedianUs),
          `**${pct(c.overhead, 1)}**`,
          fmt(c.overheadUs),
          fmt(c.fetchCpuUs),
          fmt(c.clientCpuUs),
        ],
      ],
      ['r', 'r', 'r', 'r', 'r', 'r'],
    ),
    '',
    'Per-call times are medians within a round; the overhead is the median over rounds of (client − fetch) ÷ fetch. ' +
      "Caller CPU is the harness process's CPU time per call (median over rounds): the part of the difference that is " +
      "the client's own work, whatever the server and the scheduler did.",
    '',
    'Where the difference goes: two more kinds of call, measured in the same rounds and the same rotation, each against ' +
      'the same bare fetch (medians over rounds of the per-round differences).',
    '',
    table(
      ['Call', 'µs/call', 'Over a bare fetch', 'Over a bare fetch, µs'],
      [
        [
          '`fetch(new Request(url, { headers }))`: a Request built first, which fetch copies (openapi-fetch does this)',
          fmt(c.requestMedianUs),
          pct(c.steps.request / c.fetchMedianUs, 1),
          fmt(c.steps.request),
        ],
        [
          "openapi-fetch's own client, no middleware: that Request, headers merged, URL and query built, body parsed",
          fmt(c.openapiFetchMedianUs),
          pct(c.steps.openapiFetch / c.fetchMedianUs, 1),
          fmt(c.steps.openapiFetch),
        ],
        [
          "@cls-api/client: openapi-fetch plus the client's layers (error typing, auth, retry, quota; the CORS check only in a browser)",
          fmt(c.clientMedianUs),
          `**${pct(c.overhead, 1)}**`,
          fmt(c.overheadUs),
        ],
      ],
      ['l', 'r', 'r', 'r'],
    ),
    '',
    `The client's layers over openapi-fetch: ${fmt(c.steps.layers)} µs per call (${pct(c.steps.layers / c.fetchMedianUs, 1)} ` +
      'of a bare fetch).',
  ].join('\n');
}

function bundleSection(b: BundleResult): string {
  const kb = (bytes: number) => `${fmt(bytes / 1000, 1)} KB`;
  const shares = (s: BundleResult['client']) =>
    Object.entries(s.byPackage)
      .sort((a, c) => c[1] - a[1])
      .map(([name, bytes]) => `${name} ${kb(bytes)}`)
      .join(', ');
  return [
    `## ${SCENARIO_TITLES.bundle}`,
    '',
    `@cls-api/client ${b.clientVersion} as published: packed with \`pnpm pack\`, installed with npm into a fresh ` +
      `project with its dependencies (openapi-fetch ${b.openapiFetchVersion}), and bundled by ${b.bundler} from an ` +
      'entry that imports only `createClient` and makes one call. Beside it, the same call on openapi-fetch alone. ' +
      'A KB is 1,000 bytes. Sizes do not depend on the machine.',
    '',
    table(
      ['Bundle', 'Minified', 'Gzipped'],
      [
        ['@cls-api/client', kb(b.client.minifiedBytes), `**${kb(b.client.gzipBytes)}**`],
        ['openapi-fetch alone', kb(b.openapiFetch.minifiedBytes), kb(b.openapiFetch.gzipBytes)],
        [
          "The client's own share",
          kb(b.client.minifiedBytes - b.openapiFetch.minifiedBytes),
          kb(b.client.gzipBytes - b.openapiFetch.gzipBytes),
        ],
      ],
      ['l', 'r', 'r'],
    ),
    '',
    `By package, before minification: ${shares(b.client)}. What the client adds to openapi-fetch: the contract's ` +
      "facts it acts on (error codes, each operation's credentials, paged lists, bulk limits, gateway limits), typed " +
      'errors and their report, JWT renewal, retry, pacing, quota, paging, bulk and caching; `createClient` wires all ' +
      'of them, so importing less does not leave them out. The per-call cost of the same client is in the section ' +
      'before this one.',
    '',
    '```js',
    b.client.entry.trim(),
    '```',
  ].join('\n');
}

function profileSection(p: ProfileResult): string {
  return [
    `## ${SCENARIO_TITLES.profile}`,
    '',
    `A separate reference server run with \`node --cpu-prof\`, under the GET scenario's load for ${fmt(p.durationSec)} s ` +
      `(${fmt(p.rps)} requests/s while profiled). ${p.windowed ? 'Only samples from the load window count' : 'The whole profile counts (the load window could not be matched to the profile clock)'}; ` +
      `the server was busy ${pct(p.busyShare)} of that window. Shares are of busy time. A JavaScript function's self ` +
      'time includes the native calls it makes (SQLite statements, Intl formatting).' +
      (p.savedAs ? ` Raw profile: \`${p.savedAs}\` (Chrome DevTools or speedscope).` : ''),
    '',
    table(
      ['Self time', 'Function', 'Origin'],
      p.topFunctions.map((f) => [pct(f.share, 1), `\`${f.name}\``, f.origin]),
      ['r', 'l', 'l'],
    ),
    '',
    table(
      ['Layer', 'Share of busy time'],
      p.byLayer.map((o) => [o.layer, pct(o.share, 1)]),
      ['l', 'r'],
    ),
    '',
    ...floorComparison(p),
    '<details><summary>By package</summary>',
    '',
    table(
      ['Origin', 'Share of busy time'],
      p.byOrigin.slice(0, 15).map((o) => [o.origin, pct(o.share, 1)]),
      ['l', 'r'],
    ),
    '',
    '</details>',
  ].join('\n');
}

/** The reference beside its SQLite floor, profiled the same way: what each layer adds per request. */
function floorComparison(p: ProfileResult): string[] {
  if (!p.floor) return p.floorError ? [`The SQLite floor could not be profiled: ${p.floorError}`, ''] : [];
  const rows = layerDifference(p.costByLayer, p.floor.costByLayer);
  return [
    "The SQLite floor (Fastify and the same page read through the reference's store, nothing else; " +
      'apps/bench/src/servers/floor.ts), profiled the same way on the same database right after ' +
      `(${fmt(p.floor.rps)} requests/s while profiled). Busy time per request answered, by layer; the difference is ` +
      "what the reference's own layers cost a request, in whichever layer it is spent (its headers are written by " +
      "Node's HTTP code, its validation by Ajv):",
    '',
    table(
      ['Layer', 'Reference µs/request', 'SQLite floor µs/request', 'Difference'],
      [
        ...rows.map((l) => [l.layer, fmt(l.overUs, 1), fmt(l.baseUs, 1), signed(l.differenceUs)]),
        [
          '**all**',
          `**${fmt(p.busyUsPerRequest, 1)}**`,
          `**${fmt(p.floor.busyUsPerRequest, 1)}**`,
          `**${signed(p.busyUsPerRequest - p.floor.busyUsPerRequest)}**`,
        ],
      ],
      ['l', 'r', 'r', 'r'],
    ),
    '',
  ];
}

const signed = (us: number) => `${us >= 0 ? '+' : '−'}${fmt(Math.abs(us), 1)}`;

function pipelineSection(p: PipelineResult): string {
  const run = (label: string, r: { seconds: number; cached?: number; total?: number; fullTurbo: boolean }) => [
    label,
    `${fmt(r.seconds, 2)} s`,
    r.total === undefined ? '—' : `${r.cached} of ${r.total}${r.fullTurbo ? ' (FULL TURBO)' : ''}`,
  ];
  return [
    `## ${SCENARIO_TITLES.pipeline}`,
    '',
    `A \`git clone\` of commit \`${p.commit.slice(0, 12)}\` into a temporary directory, ` +
      '`pnpm install --frozen-lockfile --offline` there (from the local store; not a target), then the root ' +
      '`pnpm build` (`turbo run build`) with no turbo cache and no build outputs, then unchanged again. ' +
      (p.workingTreeDirty
        ? 'The working tree had uncommitted changes; a clone does not have them, so they are not measured. '
        : ''),
    '',
    table(
      ['Run', 'Wall time', 'Tasks cached'],
      [
        run('install (offline)', p.install),
        run('cold build', p.cold),
        ...p.warm.map((w, i) => run(`unchanged build ${i + 1}`, w)),
        [`**unchanged build, median of ${p.warm.length}**`, `**${fmt(p.warmSeconds, 2)} s**`, ''],
      ],
      ['l', 'r', 'r'],
    ),
  ].join('\n');
}

export function renderMarkdown(r: Report): string {
  const parts: string[] = [
    `# ${r.title}`,
    '',
    `Written by \`${r.command}\` (apps/bench). Do not edit: run it again.` +
      (r.quick
        ? '\n\n> **Quick run** (`--quick`): few, short rounds. A smoke test of the harness, not numbers to quote.'
        : ''),
    '',
    machineSection(r),
    '',
    targetsSection(r),
  ];
  const res = r.results;
  for (const name of SCENARIOS) {
    if (!r.scenarios.includes(name)) continue;
    parts.push('');
    const error = res.errors[name];
    if (error) {
      parts.push(`## ${SCENARIO_TITLES[name]}`, '', `**The scenario failed:** ${error.split('\n')[0]}`);
      continue;
    }
    if (name === 'get' && res.get) parts.push(getSection(res.get));
    if (name === 'scale' && res.scale) parts.push(scaleSection(res.scale, r.machine.cores));
    if (name === 'draft' && res.draft) parts.push(draftSection(res.draft));
    if (name === 'bodies' && res.bodies) parts.push(bodiesSection(res.bodies));
    if (name === 'client' && res.client) parts.push(clientSection(res.client));
    if (name === 'bundle' && res.bundle) parts.push(bundleSection(res.bundle));
    if (name === 'profile' && res.profile) parts.push(profileSection(res.profile));
    if (name === 'pipeline' && res.pipeline) parts.push(pipelineSection(res.pipeline));
    if (name === 'kit' && res.kit) parts.push(kitSection(res.kit));
    if (name === 'silent' && res.silent) parts.push(silentSection(res.silent));
  }
  parts.push(
    '',
    '## Re-running',
    '',
    '`pnpm bench` (everything, a few minutes), `pnpm bench --quick` (a smoke run), `pnpm bench --only get,client` ' +
      '(some scenarios). Options: `--rounds N`, `--seconds S`, `--out FILE`, `--json FILE`. Ports are ephemeral and on ' +
      'loopback only; every load loop has a fixed duration or count.',
    '',
  );
  return parts.join('\n');
}
