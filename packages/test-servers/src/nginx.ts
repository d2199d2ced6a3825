import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureDebianPackage, type Log } from './debian.js';
import { sparePort } from './ports.js';
import { type RunningServer, startServer } from './process.js';

export const NGINX = '/usr/sbin/nginx';

export interface RunningNginx extends RunningServer {
  /** `http://127.0.0.1:<port>`: the proxy's address. */
  url: string;
  /** The configuration it runs, for a failed test's message or a person trying the topology. */
  config: string;
}

export interface NginxOptions {
  /** Ports on 127.0.0.1 of the instances behind the proxy, balanced round-robin. */
  upstreams: readonly number[];
  /** The proxy's own port (a spare one when absent or 0). */
  port?: number;
  /** The largest request body passed on, in bytes (the server behind it sets its own limit). */
  maxBodyBytes?: number;
  log?: Log;
}

/**
 * The nginx configuration of a proxy in front of reference instances. The client's address goes on in
 * `X-Forwarded-For` (the instances trust 127.0.0.1 through TRUSTED_PROXIES); a request an instance fails to answer
 * because it died is passed to the next one only when it cannot have written (nginx resends no POST by default);
 * and an answer nginx makes itself (no instance reachable) is the contract's error envelope, 500 INTERNAL_ERROR.
 * One process, no workers (`master_process off`): a test that kills it leaves nothing behind on the port.
 */
export function nginxConfig(dir: string, port: number, options: NginxOptions): string {
  const asRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  const servers = options.upstreams.map((p) => `    server 127.0.0.1:${p} max_fails=1 fail_timeout=2s;`).join('\n');
  const body = JSON.stringify({
    success: false,
    error: { code: 'INTERNAL_ERROR', message: 'No instance of the service could answer. Retry later.' },
  });
  return `${asRoot ? 'user root;\n' : ''}daemon off;
master_process off;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log warn;
events { worker_connections 4096; }
http {
  access_log off;
  # A client's kept-alive connection is not closed after nginx's default 1,000 requests, under the client's next one.
  keepalive_requests 100000;
  client_body_temp_path ${dir}/body;
  proxy_temp_path ${dir}/proxy;
  fastcgi_temp_path ${dir}/fastcgi;
  uwsgi_temp_path ${dir}/uwsgi;
  scgi_temp_path ${dir}/scgi;
  client_max_body_size ${options.maxBodyBytes ?? 16 * 1024 * 1024};
  upstream reference {
${servers}
    keepalive 64;
    # Shorter than the instances' own idle timeout (KEEP_ALIVE_TIMEOUT_MS, 5 s): nginx lets a connection go before an
    # instance can close it under a request, which for a POST would be an error nginx must not resend.
    keepalive_timeout 4s;
    keepalive_requests 100000;
  }
  server {
    listen 127.0.0.1:${port};
    location / {
      proxy_pass http://reference;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_set_header Host $host;
      proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
      proxy_next_upstream error timeout;
      proxy_intercept_errors off;
      error_page 502 503 504 = @unavailable;
    }
    location @unavailable {
      default_type application/json;
      return 500 '${body}';
    }
  }
}
`;
}

/** Debian's nginx (nginx-light, installed when missing) as a proxy in front of `upstreams`, in a temp dir of its own. */
export async function startNginx(options: NginxOptions): Promise<RunningNginx> {
  const log = options.log ?? ((l: string) => console.log(`[nginx] ${l}`));
  const binary = await ensureDebianPackage('nginx-light', NGINX, log);
  // Port 0 asks for a spare one, as it does of any server.
  const port = options.port || (await sparePort());
  const dir = mkdtempSync(join(tmpdir(), 'cls-nginx-'));
  for (const sub of ['body', 'proxy', 'fastcgi', 'uwsgi', 'scgi']) mkdirSync(join(dir, sub));
  const config = nginxConfig(dir, port, options);
  writeFileSync(join(dir, 'nginx.conf'), config);
  let server: RunningServer;
  try {
    server = await startServer('nginx', binary, ['-c', join(dir, 'nginx.conf'), '-p', dir], { port, log });
  } catch (err) {
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
  const stop = server.stop;
  return Object.assign(server, {
    url: `http://127.0.0.1:${port}`,
    config,
    async stop() {
      await stop();
      rmSync(dir, { recursive: true, force: true });
    },
  });
}
