// What the report says about a missed target: built from the run's own numbers (CPU per request, the profile), so
// that it never describes a run other than the one it is printed with.
import { LAYERS, layerDifference } from './cpuprofile.js';
import { fmt } from './context.js';
import type { Report } from './results.js';
import type { DraftEngineResult, DraftResult } from './scenarios/draft.js';
import { median, ratio } from './stats.js';
import { THRESHOLDS, cpu } from './targets.js';

const pct = (n: number) => `${fmt(n * 100)}%`;

/** What issue 7 says it measured for bare Fastify on 2 cores with the load generator on the same machine. */
const ISSUE_BARE_RPS = 8_500;

const roundsRange = (ratios: number[]) =>
  `its rounds ${fmt(Math.min(...ratios), 3)} to ${fmt(Math.max(...ratios), 3)} ×`;

const byPart = (parts: Record<string, number>) =>
  Object.entries(parts)
    .map(([name, us]) => `${name} ${fmt(us)}`)
    .join(', ');

/** The scale-out rounds' floor of an engine beside its reference and bare Fastify, medians of µs per request. */
function floorOf(r: Report, engine: 'sqlite' | 'postgres') {
  const t = r.results.scale?.targets;
  if (!t) return undefined;
  const floor = t[engine === 'sqlite' ? 'sqliteFloor' : 'postgresFloor'];
  const reference = t[engine];
  // CPU per request, as the GET targets are judged: bare Fastify's ÷ the floor's, round by round; the spread shows
  // how far this machine moves the floor itself.
  const floorToBareRounds = floor.rounds.map((round, i) => ratio(cpu(t.bare.rounds[i]!), cpu(round)));
  return {
    bareUs: t.bare.median.serverCpuUsPerRequest,
    floorUs: floor.median.serverCpuUsPerRequest,
    referenceUs: reference.median.serverCpuUsPerRequest,
    bareKernelUs: t.bare.median.kernelUsPerRequest,
    referenceKernelUs: reference.median.kernelUsPerRequest,
    floor: floor.median.cpuUsPerRequestByPart,
    reference: reference.median.cpuUsPerRequestByPart,
    floorToBare: median(floorToBareRounds),
    floorToBareRounds,
  };
}

/**
 * What 10 × Prism's throughput would ask of the reference: that many requests/s from one process, so at most one
 * core's second divided by them, set against the SQLite floor of the scale-out rounds when they ran.
 */
/** Where a draft request's time goes on one engine, and how far its rounds were apart. */
function draftNote(e: DraftEngineResult, d: DraftResult): string {
  const p50s = e.rounds.map((round) => round.p50Ms);
  const spread = `the rounds' p50 ranged from ${fmt(Math.min(...p50s), 1)} to ${fmt(Math.max(...p50s), 1)} ms`;
  // On PostgreSQL the two processes mostly take turns: the reference sends a statement and waits for its answer.
  const split =
    e.databaseCpuMsPerRequest === undefined
      ? ''
      : ` (the reference ${fmt(e.serverCpuMsPerRequest - e.databaseCpuMsPerRequest, 1)} ms, PostgreSQL ` +
        `${fmt(e.databaseCpuMsPerRequest, 1)} ms running the transaction's statements, which the reference waits for ` +
        'one at a time)';
  if (e.serverCpuMsPerRequest >= e.p50Ms)
    return (
      `The server's processes spend ${fmt(e.serverCpuMsPerRequest, 1)} ms of CPU per request${split}, as much as the ` +
      `${fmt(e.p50Ms, 1)} ms p50 or more (they work at once: V8's garbage collector beside the server, and on ` +
      'PostgreSQL the database server beside the reference): the request is bound by ' +
      `the CPU, so other work on the machine slows it directly; ${spread} (see the load average above).`
    );
  return (
    `Of ${fmt(e.p50Ms, 1)} ms, the server spends ${fmt(e.serverCpuMsPerRequest, 1)} ms of CPU per request${split}; the ` +
    `rest is moving ${fmt(d.requestBytes)} bytes in and ${fmt(e.responseBytes)} out over loopback and waiting for ` +
    `the other core; ${spread}.`
  );
}

export const MISSED_TARGET_NOTES: Record<string, (r: Report) => string> = {
  'get-vs-bare': (r) => {
    const g = r.results.get;
    if (!g) return '';
    const ref = g.servers.reference.median;
    const bare = g.servers.bare.median;
    // What the engine leaves the reference comes first: it decides whether the target can be met at all.
    const floorParts: string[] = [];
    const floor = floorOf(r, 'sqlite');
    if (floor) {
      const target = THRESHOLDS.getVsBare.value;
      const allowanceUs = floor.bareUs / target;
      const layersUs = floor.referenceUs - floor.floorUs;
      floorParts.push(
        `In the scale-out rounds, at ${fmt(target, 2)} × bare Fastify's ${fmt(floor.bareUs)} µs, the target allows ` +
          `the reference about ${fmt(allowanceUs)} µs of CPU per request. The SQLite floor (Fastify and the same page ` +
          `read through the reference's store, nothing else) needs ${fmt(floor.floorUs)} µs (${fmt(floor.floorToBare, 3)} × ` +
          `bare Fastify, paired round by round; ${roundsRange(floor.floorToBareRounds)}), and the reference ${fmt(floor.referenceUs)} µs: its own layers cost ` +
          `${fmt(layersUs)} µs per request, the engine and HTTP the rest.`,
      );
      if (floor.floorToBare < target)
        floorParts.push(
          'Even the floor misses the target: Fastify and one read of the page on SQLite cost more than it allows ' +
            "before any of the reference's layers (gateway limit, auth, quota, validation, envelope, serialization) " +
            'runs, so no change to those layers can meet it on this engine.',
        );
      else {
        const leftUs = Math.max(0, allowanceUs - floor.floorUs);
        const ownUs = r.results.profile?.costByLayer.find((l) => l.layer === LAYERS.reference)?.usPerRequest;
        const missedRounds = floor.floorToBareRounds.filter((x) => x < target).length;
        floorParts.push(
          `That leaves about ${fmt(leftUs)} µs for all of the reference's layers (gateway limit, auth, quota, ` +
            `validation, envelope, serialization), which cost ${fmt(layersUs)} µs.` +
            (missedRounds > 0
              ? ` In ${fmt(missedRounds)} of ${fmt(floor.floorToBareRounds.length)} rounds the floor itself missed ` +
                `${fmt(target, 2)} ×: the target lies within this machine's spread of the floor, and asks the ` +
                "reference's layers to cost next to nothing."
              : '') +
            (ownUs === undefined
              ? ''
              : ownUs >= leftUs
                ? ` The reference's own code alone (its hooks, routes and domain), ${fmt(ownUs, 1)} µs per request in ` +
                  'the profile below, already takes more than that, before Ajv, Fastify and Node write a byte of ' +
                  'what those layers add.'
                : ` The reference's own code (its hooks, routes and domain) takes ${fmt(ownUs, 1)} µs per request in ` +
                  "the profile below; the rest of the layers' cost is spent in Ajv, Fastify and Node's HTTP."),
        );
      }
      floorParts.push(
        `Of the reference's ${fmt(floor.referenceUs)} µs, ${fmt(floor.referenceKernelUs)} µs are the kernel's (bare ` +
          `Fastify's: ${fmt(floor.bareKernelUs)} µs): the profile's \`writev\` below is that time, sending each answer ` +
          'and waking the load generator, which sleeps between answers more often the slower the server is.',
      );
    }
    const parts = [
      `In the GET section, the bare Fastify ceiling is ${fmt(bare.rps)} requests/s, ${fmt(bare.rps / ISSUE_BARE_RPS, 1)} × the ` +
        `about ${fmt(ISSUE_BARE_RPS)} the issue expected: it sends bytes it already holds for ${fmt(bare.serverCpuUsPerRequest)} µs ` +
        `of server CPU per request, and the load generator on the other core is at ${pct(bare.loadGeneratorCpu)} of a core. ` +
        `The reference serves ${fmt(ref.rps)} requests/s (${fmt(ref.rps / ISSUE_BARE_RPS, 2)} × that expected ceiling) ` +
        `for ${fmt(ref.serverCpuUsPerRequest)} µs of CPU per request.`,
    ];
    const sqlite = r.results.profile?.byLayer.find((l) => l.layer === LAYERS.sqlite)?.share;
    if (sqlite !== undefined) {
      const withoutSqlite = ref.serverCpuUsPerRequest * (1 - sqlite);
      parts.push(
        `The profile puts ${pct(sqlite)} of that in SQLite: the page of orders and its count, which the scenario ` +
          "requires (the API key lookup and the live key's usage write are no longer on every call: keys are " +
          'remembered for a second and live usage is written in batches; the scale-out section measures that ' +
          'against the server with both off). Even with no SQLite time ' +
          `at all, the reference would need about ${fmt(withoutSqlite)} µs per request for HTTP, its hooks (gateway limit, ` +
          'auth, quota, envelope), Ajv and serialization, which caps it at about ' +
          `${fmt(bare.serverCpuUsPerRequest / withoutSqlite, 2)} × this ceiling (the target is ${fmt(THRESHOLDS.getVsBare.value, 2)} ×); the profile below shows where the time goes.`,
      );
    }
    const own = r.results.profile?.byLayer.find((l) => l.layer === LAYERS.reference)?.share;
    if (own !== undefined) {
      const withoutOwn = ref.serverCpuUsPerRequest * (1 - own);
      parts.push(
        `The reference's own code (its hooks, routes and domain, outside its store) is ${pct(own)} of its busy time ` +
          `in the profile: were it free, the reference would still need about ${fmt(withoutOwn)} µs per request, ` +
          `${fmt(bare.serverCpuUsPerRequest / withoutOwn, 2)} × bare Fastify; the rest is Fastify, Ajv, Node's HTTP, ` +
          'SQLite and the kernel.',
      );
    }
    const profiled = r.results.profile;
    if (profiled?.floor) {
      const added = layerDifference(profiled.costByLayer, profiled.floor.costByLayer).filter(
        (l) => l.differenceUs >= 0.5,
      );
      parts.push(
        `Profiled one after the other (below), the reference is busy ${fmt(profiled.busyUsPerRequest, 1)} µs per ` +
          `request and its floor ${fmt(profiled.floor.busyUsPerRequest, 1)} µs; the reference spends ` +
          `${added.map((l) => `${fmt(l.differenceUs, 1)} µs more in ${l.layer}`).join('; ')}.` +
          (added.some((l) => l.layer === LAYERS.sqlite)
            ? ' SQLite is among them although both run the same statement on the same database.'
            : ''),
      );
    }
    return [...floorParts, ...parts].join(' ');
  },

  'get-postgres-vs-bare': (r) => {
    const floor = floorOf(r, 'postgres');
    if (!floor) return '';
    const target = THRESHOLDS.getPostgresVsBare.value;
    const allowanceUs = floor.bareUs / target;
    const parts = [
      `The reference on PostgreSQL needs ${fmt(floor.referenceUs)} µs of server CPU per request ` +
        `(${byPart(floor.reference)}); bare Fastify needs ${fmt(floor.bareUs)} µs, so the target allows about ` +
        `${fmt(allowanceUs)} µs. Its floor, Fastify and the same page read through the reference's store ` +
        `with nothing else, needs ${fmt(floor.floorUs)} µs (${byPart(floor.floor)}): ${fmt(floor.floorToBare, 3)} × bare Fastify in the same terms (${roundsRange(floor.floorToBareRounds)}).`,
    ];
    if (floor.floorToBare < target)
      parts.push(
        'Even that floor misses the target: one statement over the PostgreSQL protocol (the driver on one side, the ' +
          'database server on the other, and the kernel between them) costs more than the target allows, whatever ' +
          "the reference's own layers cost.",
      );
    else
      parts.push(
        `The floor meets the target; the reference's own layers, ${fmt(floor.referenceUs - floor.floorUs)} µs per ` +
          'request, are what it misses by.',
      );
    // Whether another driver could: the allowance less what no driver changes (HTTP as bare Fastify does it,
    // PostgreSQL's own work on the statement, the reference's layers) is all a driver may spend. The layers are the
    // same code on both engines; they are taken from SQLite's rounds, where no database server shares the cores and
    // the reference's CPU above its floor moves least from run to run.
    const sqlite = floorOf(r, 'sqlite');
    const httpUs = floor.bareUs;
    const databaseUs = floor.floor.postgres;
    const driverUs = (floor.floor.floor ?? Number.NaN) - httpUs;
    if (sqlite && databaseUs !== undefined && Number.isFinite(driverUs)) {
      const layersUs = sqlite.referenceUs - sqlite.floorUs;
      const leftUs = allowanceUs - httpUs - databaseUs - layersUs;
      parts.push(
        `Split by what a change of driver would not touch, the ${fmt(allowanceUs)} µs must hold HTTP as bare Fastify ` +
          `does it (${fmt(httpUs)} µs), PostgreSQL's own work on the statement (${fmt(databaseUs)} µs) and the ` +
          `reference's layers (${fmt(layersUs)} µs: the reference above its floor on SQLite, the same code measured ` +
          'where no database server shares the cores); ' +
          (leftUs <= 0
            ? `together they take ${fmt(allowanceUs - leftUs)} µs, more than the target allows before the driver ` +
              `spends anything (pg takes about ${fmt(driverUs)} µs: the floor's process above bare Fastify), so no ` +
              "driver can meet it with this database server and the reference's layers as they are."
            : `that leaves ${fmt(leftUs)} µs for the driver's work on one statement, where pg takes about ` +
              `${fmt(driverUs)} µs (the floor's process above bare Fastify).`),
      );
    }
    return parts.join(' ');
  },

  'nginx-two-instances': (r) => {
    const t = r.results.scale?.targets;
    if (!t) return '';
    const direct = t.postgres.median;
    const two = t.nginx2.median;
    const part = (name: string) => two.cpuUsPerRequestByPart[name] ?? 0;
    const allowance = (THRESHOLDS.nginxTwoToDirect.value - 1) * direct.serverCpuUsPerRequest;
    const proxyAndRedis = part('nginx') + part('redis');
    const more = (name: string) => part(name) - (direct.cpuUsPerRequestByPart[name] ?? 0);
    return [
      `nginx → 2 instances needs ${fmt(two.serverCpuUsPerRequest)} µs of server CPU per request, the one instance ` +
        `without nginx ${fmt(direct.serverCpuUsPerRequest)} µs: the target allows ${fmt(allowance)} µs more. nginx ` +
        `itself takes ${fmt(part('nginx'))} µs and Redis ${fmt(part('redis'))} µs (every request takes its gateway ` +
        `token there, so that the limit holds across instances); the reference processes take ${fmt(more('reference'))} µs ` +
        `more than the one instance (the Redis call, the proxy's headers, and two processes each woken for half the ` +
        `requests on the same cores) and PostgreSQL ${fmt(more('postgres'))} µs more.`,
      proxyAndRedis > allowance
        ? `nginx and Redis alone, ${fmt(proxyAndRedis)} µs, exceed the allowance: with a gateway bucket shared in Redis ` +
          'and a proxy in front, this topology cannot meet the target on one machine, whatever the instances cost.'
        : `nginx and Redis take ${fmt(proxyAndRedis)} µs of the ${fmt(allowance)} µs allowed; the rest is the instances'.`,
    ].join(' ');
  },

  'get-vs-prism': (r) => {
    const g = r.results.get;
    if (!g) return '';
    const ref = g.servers.reference.median;
    const prism = g.servers.prism.median;
    const budgetUs = prism.serverCpuUsPerRequest / THRESHOLDS.getVsPrism.value;
    const floor = floorOf(r, 'sqlite');
    return (
      `The reference needs ${fmt(ref.serverCpuUsPerRequest)} µs of CPU per request, Prism (both processes) ` +
      `${fmt(prism.serverCpuUsPerRequest)} µs. ${fmt(THRESHOLDS.getVsPrism.value, 0)} × Prism allows the reference ` +
      `${fmt(budgetUs)} µs per request` +
      (floor ? `; the SQLite floor alone needs ${fmt(floor.floorUs)} µs in the scale-out rounds. ` : '. ') +
      "See the profile below for the reference's share of each layer."
    );
  },

  'draft-p50': (r) => {
    const d = r.results.draft;
    return d ? draftNote(d, d) : '';
  },

  'draft-postgres-p50': (r) => {
    const d = r.results.draft;
    return d?.postgres ? draftNote(d.postgres, d) : '';
  },

  'client-overhead': (r) => {
    const c = r.results.client;
    if (!c) return '';
    const remoteCallUs = 20_000;
    const share = (us: number) => pct(us / c.fetchMedianUs);
    const overheads = c.rounds.map((round) => round.overhead);
    // What the bound leaves the client's own layers once openapi-fetch, which they are built on, has taken its part.
    const allowedUs = THRESHOLDS.clientOverhead.value * c.fetchMedianUs;
    const leftUs = allowedUs - c.steps.openapiFetch;
    return (
      `The client adds ${fmt(c.overheadUs)} µs to a ${fmt(c.fetchMedianUs)} µs call; from round to round the overhead ` +
      `ranged from ${pct(Math.min(...overheads))} to ${pct(Math.max(...overheads))}, a wider spread than the ` +
      "target's margin, since the calls, the server and the harness share the machine's cores. Measured side by side " +
      'in the same rounds: a Request built before fetch, which fetch then copies with its AbortSignal, costs ' +
      `${fmt(c.steps.request)} µs; openapi-fetch alone, without middleware, which does exactly that, adds ` +
      `${fmt(c.steps.openapiFetch)} µs (${share(c.steps.openapiFetch)} of a bare fetch). The client hands openapi-fetch ` +
      'a light request object through its `Request` option (packages/client/src/request.ts), so that only fetch builds ' +
      `an undici Request; its own layers then cost ${fmt(c.steps.layers)} µs over openapi-fetch ` +
      `(${share(c.steps.layers)}). Of the ${fmt(allowedUs)} µs the target allows, openapi-fetch leaves the client's ` +
      `layers ${leftUs > 0 ? `${fmt(leftUs)} µs` : 'nothing'}. The same ${fmt(c.overheadUs)} µs would be ` +
      `${fmt((c.overheadUs / remoteCallUs) * 100, 1)}% of a ${fmt(remoteCallUs / 1000)} ms call across a network. ` +
      'Proposal, keeping openapi-fetch: merge the two middlewares (error typing and auth) into one, which halves the ' +
      'awaited hooks openapi-fetch runs per call, and the transport layers into one function, at the cost of the ' +
      'one-concern-per-step layout.'
    );
  },

  'unchanged-rebuild': (r) => {
    const p = r.results.pipeline;
    if (!p) return '';
    const last = p.warm[p.warm.length - 1];
    return last?.fullTurbo
      ? `Every task came from the turbo cache; the time is turbo's own start-up and hashing on this machine.`
      : `Not every task came from the cache (${last?.cached ?? '?'} of ${last?.total ?? '?'}): some task's inputs or outputs are not declared so that a second run can replay it.`;
  },
};
