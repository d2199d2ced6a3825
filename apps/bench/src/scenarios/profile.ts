// Where the reference server's time goes under the GET load: a reference server started with `node --cpu-prof`,
// loaded exactly as in the GET scenario, and the profile's samples from the load window summarised by self time.
import { mkdir, mkdtemp, readdir, readFile, rm, copyFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { areaOf } from '@cls-api/spec';
import { GET_REQUEST, fmt, type Context } from '../context.js';
import { summarizeProfile, type CpuProfile, type ProfileSummary } from '../cpuprofile.js';
import { runLoad } from '../load.js';
import { startReference } from '../servers/start.js';

export interface ProfileResult extends ProfileSummary {
  request: string;
  durationSec: number;
  /** Requests per second while profiling (the profiler itself costs some). */
  rps: number;
  /** Where the raw .cpuprofile was kept, relative to the repository root (Chrome DevTools or speedscope open it). */
  savedAs: string | undefined;
}

/** Microseconds on CLOCK_MONOTONIC: the clock V8's profiler stamps samples with on Linux. */
const monotonicUs = () => Number(process.hrtime.bigint() / 1000n);

export async function runProfile(ctx: Context): Promise<ProfileResult> {
  const { settings, log } = ctx;
  const s = settings.profile;
  const dir = await mkdtemp(join(tmpdir(), 'cls-bench-prof-'));
  try {
    log('starting the reference server with --cpu-prof…');
    const reference = await startReference({ nodeArgs: ['--cpu-prof', `--cpu-prof-dir=${dir}`] });
    const target = `${reference.url}${GET_REQUEST.path}?${GET_REQUEST.query}`;
    const headers = {
      'X-API-Key': reference.liveKey(areaOf(GET_REQUEST.path) as 'manager'),
      Accept: 'application/json',
    };
    let windowUs: { fromUs: number; toUs: number };
    let rps: number;
    try {
      await runLoad({
        url: target,
        headers,
        connections: settings.get.connections,
        durationSec: Math.min(2, s.durationSec),
      });
      const fromUs = monotonicUs();
      const r = await runLoad({
        url: target,
        headers,
        connections: settings.get.connections,
        durationSec: s.durationSec,
      });
      windowUs = { fromUs, toUs: monotonicUs() };
      rps = r.rps;
      log(`profiled ${fmt(r.rps)} req/s for ${s.durationSec} s`);
    } finally {
      // The profile is written when the process exits; the server exits on SIGTERM after a graceful close.
      await reference.close();
    }
    const file = (await readdir(dir)).find((f) => f.endsWith('.cpuprofile'));
    if (!file) throw new Error('the reference server wrote no CPU profile');
    const profile = JSON.parse(await readFile(join(dir, file), 'utf8')) as CpuProfile;
    const summary = summarizeProfile(profile, s.top, windowUs);
    let savedAs: string | undefined;
    try {
      await mkdir(ctx.artefactsDir, { recursive: true });
      const saved = join(ctx.artefactsDir, 'reference-get.cpuprofile');
      await copyFile(join(dir, file), saved);
      savedAs = relative(ctx.repoRoot, saved);
    } catch {
      savedAs = undefined;
    }
    return {
      ...summary,
      request: `GET ${GET_REQUEST.path}?${GET_REQUEST.query}`,
      durationSec: s.durationSec,
      rps,
      savedAs,
    };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
