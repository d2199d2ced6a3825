// The GitHub Actions workflows of .github/workflows/ (CI, and the release: version, tag and push, then publish the
// packages and deploy the docs site): each passes the workflow linter (action-validator); the release's jobs come in
// the order that publishes nothing before the tag is pushed; and the site job's shell steps run as written, in a copy
// of this checkout (its files as git lists them), with the registry read offline from the store this checkout was
// installed from, turbo's cache shared with this checkout, and the address GitHub Pages reports given as a project
// site's (`https://<owner>.github.io/<repo>`) and as a custom domain's; each built site is served as GitHub Pages
// serves it and crawled, every in-site link followed. The release's version, push and publish steps run as written in
// test/registry.test.ts, against its throwaway registry and a local remote. The steps that cannot run here say why.
import { spawnSync } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { repoRoot } from '../src/repo.js';
import { linksIn, siteFiles, startStaticHost } from './support/static-host.js';
import { runStep, runSteps, type Step, workflow, workflowsDir } from './support/workflows.js';

const root = repoRoot(import.meta.dirname);
const validator = join(
  dirname(createRequire(import.meta.url).resolve('@action-validator/cli/package.json')),
  'cli.mjs',
);

const work = mkdtempSync(join(tmpdir(), 'cls-workflows-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

function lint(file: string): { status: number | null; output: string } {
  const res = spawnSync(process.execPath, [validator, file], { encoding: 'utf8' });
  return { status: res.status, output: `${res.stdout}${res.stderr}` };
}

/** A copy of the checkout's files (tracked, and new ones git would add), as a runner's checkout has them. */
function checkoutCopy(): string {
  const dir = join(work, 'checkout');
  const listed = spawnSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], {
    cwd: root,
    encoding: 'utf8',
  }).stdout.split('\0');
  for (const file of listed.filter(Boolean)) {
    if (!existsSync(join(root, file))) continue;
    mkdirSync(dirname(join(dir, file)), { recursive: true });
    copyFileSync(join(root, file), join(dir, file));
  }
  return dir;
}

function runAsWritten(step: Step, cwd: string, values: Record<string, string> = {}): void {
  const res = runStep(
    step,
    cwd,
    {
      ...process.env,
      CI: 'true',
      npm_config_offline: 'true',
      TURBO_TELEMETRY_DISABLED: '1',
      // Turbo's cache is keyed by each task's inputs, the site's address included (DOCS_SITE_URL, apps/docs/turbo.json):
      // with this checkout's cache, the copy builds the docs site for that address and replays the packages under it,
      // unchanged, where a runner would build them cold to the same files.
      TURBO_CACHE_DIR: join(root, '.turbo', 'cache'),
    },
    values,
  );
  expect(res.status, `step "${step.name}" exited ${res.status}:\n${res.stdout}${res.stderr}`).toBe(0);
}

describe('the workflows', () => {
  it('are the two, and each passes the workflow linter', () => {
    expect(readdirSync(workflowsDir).sort()).toEqual(['ci.yml', 'release.yml']);
    for (const file of readdirSync(workflowsDir)) {
      const { status, output } = lint(join(workflowsDir, file));
      expect(status, `${file}: ${output}`).toBe(0);
    }
  });

  it('the linter refuses a workflow with a misspelled key, so a pass means something', () => {
    const broken = join(work, 'broken.yml');
    writeFileSync(broken, readFileSync(join(workflowsDir, 'ci.yml'), 'utf8').replace('runs-on:', 'runs_on:'));
    const { status, output } = lint(broken);
    expect(status).toBe(1);
    expect(output).toContain("Additional property 'runs_on' is not allowed");
  });

  it('CI runs the repository entry point, .ci/run, in Debian with Node 20 as root', () => {
    // Not run here: .ci/run is what runs this very test (a clean install, then `pnpm test`).
    expect(runSteps('ci.yml').map((s) => s.run!.trim())).toEqual(['.ci/run']);
    expect(existsSync(join(root, '.ci', 'run'))).toBe(true);
    const job = Object.values(workflow('ci.yml').jobs)[0] as unknown as { container: string };
    expect(job.container).toMatch(/^node:20-bookworm$/);
  });

  it('release is one run: version, tag and push, then publish and the site, the site deployed last', () => {
    const release = workflow('release.yml');
    // Started by hand from main. No workflow listens for the tag: a push made with GITHUB_TOKEN starts none.
    expect(release.on).toEqual({ workflow_dispatch: null });
    for (const file of readdirSync(workflowsDir)) expect(JSON.stringify(workflow(file).on)).not.toContain('tags');
    const { jobs } = release;
    expect(Object.keys(jobs)).toEqual(['release', 'publish', 'site', 'deploy']);
    expect(jobs.release!.if).toBe("github.ref == 'refs/heads/main'");
    expect(release.permissions).toEqual({ contents: 'read' });
    expect(jobs.release!.permissions).toEqual({ contents: 'write' });

    // 1. Version and tag (publishing nothing), then push the commit and the tag, which becomes the job's output.
    expect(runSteps('release.yml', 'release').map((s) => s.name)).toEqual([
      'Install',
      'Version and tag',
      'Push the version commit and the tag',
    ]);
    const [, version, push] = runSteps('release.yml', 'release');
    expect(version!.run).toMatch(/^pnpm release$/m);
    expect(version!.env).toBeUndefined();
    expect(push!.run).toMatch(/^git push --follow-tags origin HEAD:main$/m);
    expect(push!.run).toMatch(/>> "\$GITHUB_OUTPUT"$/m);
    expect(jobs.release!.outputs).toEqual({ tag: `\${{ steps.${push!.id}.outputs.tag }}` });

    // 2. Only once that job passed, the publish and site jobs, each at the pushed tag.
    for (const name of ['publish', 'site']) {
      expect(jobs[name]!.needs, name).toBe('release');
      const checkout = jobs[name]!.steps.find((s) => s.uses?.startsWith('actions/checkout@'));
      expect(checkout?.with?.ref, name).toBe(`\${{ needs.release.outputs.tag }}`);
    }
    const [, publish] = runSteps('release.yml', 'publish');
    expect(publish!.run!.trim()).toBe('pnpm release --publish');
    expect(publish!.env).toEqual({ NODE_AUTH_TOKEN: `\${{ secrets.NPM_TOKEN }}` });
    expect(jobs.publish!.permissions).toBeUndefined();

    // 3. The site is built for the address GitHub Pages reports, and deployed after the packages are published.
    const pages = jobs.site!.steps.find((s) => s.uses?.startsWith('actions/configure-pages@'))!;
    const build = jobs.site!.steps.find((s) => s.name === 'Build the site')!;
    expect(build.env).toEqual({ DOCS_SITE_URL: `\${{ steps.${pages.id}.outputs.base_url }}` });
    expect(jobs.site!.steps.at(-1)!.uses).toMatch(/^actions\/upload-pages-artifact@/);
    expect(jobs.deploy!.needs).toEqual(['publish', 'site']);
    expect(jobs.deploy!.environment).toMatchObject({ name: 'github-pages' });
    expect(jobs.deploy!.permissions).toEqual({ pages: 'write', 'id-token': 'write' });
    expect(jobs.deploy!.steps.map((s) => s.uses)).toEqual([expect.stringMatching(/^actions\/deploy-pages@/)]);
  });

  it("every job that installs does so on the Node LTS of the run's day, pnpm's store cached, pnpm as package.json says", () => {
    const installing = Object.entries(workflow('release.yml').jobs).filter(([, j]) =>
      j.steps.some((s) => s.run?.includes('pnpm install')),
    );
    expect(installing.map(([name]) => name)).toEqual(['release', 'publish', 'site']);
    for (const [name, job] of installing) {
      const uses = job.steps.map((s) => s.uses ?? '');
      const pnpm = uses.findIndex((u) => u.startsWith('pnpm/action-setup@'));
      const node = uses.findIndex((u) => u.startsWith('actions/setup-node@'));
      // pnpm first, so that setup-node finds it to cache its store; no version of its own: packageManager decides.
      expect(pnpm, name).toBeGreaterThan(-1);
      expect(pnpm, name).toBeLessThan(node);
      expect(job.steps[pnpm]!.with?.version, name).toBeUndefined();
      expect(job.steps[node]!.with).toMatchObject({ 'node-version': 'lts/*', cache: 'pnpm' });
      expect(job.steps.find((s) => s.name === 'Install')!.run!.trim(), name).toBe('pnpm install --frozen-lockfile');
    }
  });

  describe.each([
    ['a project site', 'https://example.github.io/contract', '/contract/'],
    ['a custom domain', 'https://docs.example.com', '/'],
  ])('the site job, as written, for %s (%s)', (_, address, base) => {
    let site: string;
    let pageHtml: string;

    it('installs, builds and assembles the static site', { timeout: 900_000 }, () => {
      const checkout = join(work, 'checkout');
      if (!existsSync(checkout)) checkoutCopy();
      rmSync(join(checkout, '_site'), { recursive: true, force: true });
      for (const step of runSteps('release.yml', 'site')) {
        runAsWritten(step, checkout, { 'steps.pages.outputs.base_url': address });
      }
      site = join(checkout, '_site');
      pageHtml = readFileSync(join(site, 'index.html'), 'utf8');
      expect(readdirSync(site)).toEqual(expect.arrayContaining(['404.html', 'index.html', 'llms.txt', 'openapi.json']));
      expect(readdirSync(site)).not.toContain('lib');
      expect(readdirSync(join(site, 'sandbox')), 'the sandbox reference page').toContain('index.html');
      expect(readFileSync(join(site, '404.html'), 'utf8')).toBe(pageHtml);
      expect(readFileSync(join(site, 'llms.txt'), 'utf8')).toContain(`](${address}/llms-full.txt)`);
    });

    it('served as GitHub Pages serves it, every in-site link of every file resolves under its path', async () => {
      expect(site, 'the site was built').toBeDefined();
      const host = await startStaticHost(site, base);
      // The sections a page holds, as hash routes name them (`#/wms-orders`): the contract's page, or the sandbox
      // reference page (`sandbox/`), whichever the link lands on.
      const sectionsOf = (html: string) =>
        new Set([
          ...[...html.matchAll(/data-section-id="\/([^"]*)"/g)].map((m) => m[1]!),
          ...[...html.matchAll(/\sid="([^"]+)"/g)].map((m) => m[1]!),
        ]);
      const sectionsAt = new Map<string, Set<string>>();
      const broken: string[] = [];
      let followed = 0;
      try {
        for (const file of siteFiles(site)) {
          const at = new URL(file.replace(/(^|\/)index\.html$/, '$1'), host.url);
          for (const link of linksIn(file, readFileSync(join(site, file), 'utf8'))) {
            if (/^(data|mailto):/.test(link)) continue;
            let target = new URL(link, at);
            // A link written with the site's public address is a link into the site.
            if (`${target.origin}${target.pathname}`.startsWith(`${address}/`)) {
              target = new URL(
                `${target.pathname.slice(new URL(address).pathname.replace(/\/$/, '').length + 1)}${target.hash}`,
                host.url,
              );
            }
            if (target.origin !== new URL(host.url).origin) continue; // another site (the repository, Redocly)
            followed++;
            if (!target.pathname.startsWith(base)) {
              broken.push(`${file}: ${link} leaves the site (${target.pathname})`);
              continue;
            }
            const res = await fetch(new URL(target.pathname, host.url));
            const body = await res.text();
            if (res.status !== 200) broken.push(`${file}: ${link} answers ${res.status}`);
            const route = target.hash.startsWith('#/') ? target.hash.slice(2).split('#')[0]! : '';
            if (!route) continue;
            if (!sectionsAt.has(target.pathname)) sectionsAt.set(target.pathname, sectionsOf(body));
            if (!sectionsAt.get(target.pathname)!.has(route))
              broken.push(`${file}: ${link} names no section of the page`);
          }
        }
      } finally {
        await host.close();
      }
      expect(broken).toEqual([]);
      // The page's menu and guides, the start page's files for agents, llms.txt's pages, the route pages.
      expect(followed).toBeGreaterThan(100);
    });
  });
});
