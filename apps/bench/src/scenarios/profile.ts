// Where the reference server's time goes under the GET load: a reference server started with `node --cpu-prof`,
// loaded exactly as in the GET scenario, and the profile's samples from the load window summarised by self time.
// Then the SQLite floor (servers/floor.ts: Fastify and the same page read, nothing else) on the reference's own
// database, profiled the same way: what each layer costs a request on both is what the reference's layers add.
import { mkdir, mkdtemp, readdir, readFile, rm, copyFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { areaOf } from '@cls-api/spec';
import { GET_REQUEST, fmt, type Context } from '../context.js';
import {
  costPerRequest,
  summarizeProfile,
  type CpuProfile,
  type LayerCost,
  type ProfileSummary,
} from '../cpuprofile.js';
import { runLoad } from '../load.js';
import { trackStop } from '../processes.js';
import { startFloor, startReference } from '../servers/start.js';

/** A profiled server's CPU per request in the load window: all of it, and by layer. */
export interface ProfiledCost {
  /** Requests per second while profiling (the profiler itself costs some). */
  rps: number;
  busyUsPerRequest: number;
  costByLayer: LayerCost[];
}

export interface ProfileResult extends ProfileSummary, ProfiledCost {
  request: string;
  durationSec: number;
  /** Where the raw .cpuprofile was kept, relative to the repository root (Chrome DevTools or speedscope open it). */
  savedAs: string | undefined;
  /** The SQLite floor profiled the same way on the reference's database; absent when it failed (`floorError`). */
  floor?: ProfiledCost;
  floorError?: string;
}

/** Microseconds on CLOCK_MONOTONIC: the clock V8's profiler stamps samples with on Linux. */
const monotonicUs = () => Number(process.hrtime.bigint() / 1000n);

const cpuProf = (dir: string) => ['--cpu-prof', `--cpu-prof-dir=${dir}`];

interface LoadWindow {
  window: { fromUs: number; toUs: number };
  rps: number;
  /** 2xx responses in the window. */
  ok: number;
}

/** A short warm-up, then the measured load, with the window it covered on the profiler's clock. */
async function loadWindow(ctx: Context, url: string, headers: Record<string, string>): Promise<LoadWindow> {
  const { settings } = ctx;
  const durationSec = settings.profile.durationSec;
  const connections = settings.get.connections;
  await runLoad({ url, headers, connections, durationSec: Math.min(2, durationSec) });
  const fromUs = monotonicUs();
  const r = await runLoad({ url, headers, connections, durationSec });
  return { window: { fromUs, toUs: monotonicUs() }, rps: r.rps, ok: r.ok };
}

/** The profile a server wrote into `dir` when it exited. */
async function readProfile(dir: string, label: string): Promise<{ file: string; profile: CpuProfile }> {
  const name = (await readdir(dir)).find((f) => f.endsWith('.cpuprofile'));
  if (!name) throw new Error(`the ${label} wrote no CPU profile`);
  const file = join(dir, name);
  return { file, profile: JSON.parse(await readFile(file, 'utf8')) as CpuProfile };
}

function costOf(summary: ProfileSummary, load: LoadWindow): ProfiledCost {
  const { busyUs, byLayer } = costPerRequest(summary, load.ok);
  return { rps: load.rps, busyUsPerRequest: busyUs, costByLayer: byLayer };
}

export async function runProfile(ctx: Context): Promise<ProfileResult> {
  const { settings, log } = ctx;
  const s = settings.profile;
  const dir = await mkdtemp(join(tmpdir(), 'cls-bench-prof-'));
  // Removed in `finally`, or by `stopAll` when the run is interrupted (after the servers writing into it stop).
  const removeDir = trackStop(() => rm(dir, { recursive: true, force: true }));
  const referenceDir = join(dir, 'reference');
  const floorDir = join(dir, 'floor');
  try {
    log('starting the reference server with --cpu-prof…');
    const reference = await startReference({ nodeArgs: cpuProf(referenceDir) });
    const query = `${GET_REQUEST.path}?${GET_REQUEST.query}`;
    const headers = {
      'X-API-Key': reference.liveKey(areaOf(GET_REQUEST.path) as 'manager'),
      Accept: 'application/json',
    };
    let referenceLoad: LoadWindow;
    let floorLoad: LoadWindow | undefined;
    let floorError: string | undefined;
    try {
      referenceLoad = await loadWindow(ctx, `${reference.url}${query}`, headers);
      log(`profiled the reference: ${fmt(referenceLoad.rps)} req/s for ${s.durationSec} s`);
      // The floor reads the reference's database (the reference idle meanwhile), so it must stop first.
      try {
        log('starting the SQLite floor with --cpu-prof on the same database…');
        const floor = await startFloor(
          GET_REQUEST.path,
          reference.env.DATABASE!,
          reference.account.account_id,
          'SQLite floor',
          cpuProf(floorDir),
        );
        try {
          floorLoad = await loadWindow(ctx, `${floor.url}${query}`, headers);
          log(`profiled the floor: ${fmt(floorLoad.rps)} req/s for ${s.durationSec} s`);
        } finally {
          // The profile is written when the process exits.
          await floor.close();
        }
      } catch (err) {
        floorError = err instanceof Error ? err.message : String(err);
        log(`the floor's profile failed: ${floorError}`);
      }
    } finally {
      // The profile is written when the process exits; the server exits on SIGTERM after a graceful close.
      await reference.close();
    }
    const { file, profile } = await readProfile(referenceDir, 'reference server');
    const summary = summarizeProfile(profile, s.top, referenceLoad.window);
    let floor: ProfiledCost | undefined;
    if (floorLoad) {
      try {
        const floorProfile = (await readProfile(floorDir, 'SQLite floor')).profile;
        floor = costOf(summarizeProfile(floorProfile, s.top, floorLoad.window), floorLoad);
      } catch (err) {
        floorError = err instanceof Error ? err.message : String(err);
      }
    }
    let savedAs: string | undefined;
    try {
      await mkdir(ctx.artefactsDir, { recursive: true });
      const saved = join(ctx.artefactsDir, 'reference-get.cpuprofile');
      await copyFile(file, saved);
      savedAs = relative(ctx.repoRoot, saved);
    } catch {
      savedAs = undefined;
    }
    return {
      ...summary,
      ...costOf(summary, referenceLoad),
      request: `GET ${query}`,
      durationSec: s.durationSec,
      savedAs,
      ...(floor ? { floor } : {}),
      ...(floorError ? { floorError } : {}),
    };
  } finally {
    await removeDir();
  }
}
