import { execFileSync } from 'node:child_process';
import { cpus, freemem, loadavg, platform, release, totalmem } from 'node:os';

export interface MachineInfo {
  cores: number;
  cpuModel: string;
  memoryGiB: number;
  freeMemoryGiB: number;
  node: string;
  os: string;
  /** 1, 5 and 15 minute load averages when the run started: other work on the machine shows up here. */
  loadAverage: [number, number, number];
  /** ISO time at which the run started. */
  startedAt: string;
}

const GiB = 1024 ** 3;
const round1 = (n: number) => Math.round(n * 10) / 10;

/** 1, 5 and 15 minute load averages now. */
export function loadAverage(): [number, number, number] {
  const [l1, l5, l15] = loadavg() as [number, number, number];
  return [round1(l1), round1(l5), round1(l15)];
}

export function machineInfo(startedAt: Date): MachineInfo {
  const list = cpus();
  return {
    cores: list.length,
    cpuModel: list[0]?.model.trim() ?? 'unknown',
    memoryGiB: round1(totalmem() / GiB),
    freeMemoryGiB: round1(freemem() / GiB),
    node: process.version,
    os: `${platform()} ${release()}`,
    loadAverage: loadAverage(),
    startedAt: startedAt.toISOString(),
  };
}

/** The commit a directory's repository has checked out, and whether its working tree differs from it. */
export function gitState(dir: string): { commit: string; dirty: boolean } | undefined {
  try {
    const commit = execFileSync('git', ['rev-parse', 'HEAD'], {
      cwd: dir,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    }).trim();
    const status = execFileSync('git', ['status', '--porcelain'], {
      cwd: dir,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    return { commit, dirty: status.trim() !== '' };
  } catch {
    return undefined;
  }
}
