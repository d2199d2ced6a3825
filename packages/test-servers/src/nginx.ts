import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureDebianPackage, type Log } from './debian.js';
import { assertPortFree, sparePort } from './ports.js';
import { type OwnGroup, type RunningServer, startServer } from './process.js';

export const NGINX = '/usr/sbin/nginx';

export interface RunningNginx extends RunningServer {
  /** `http://127.0.0.1:<port>`: the proxy's address. */
  url: string;
  /** The configuration it runs, for a failed test's message or a person trying the topology. */
  config: string;
  /** Its folder (configuration, temporary files, error log), removed by `stop`. */
  dir: string;
}

export interface NginxOptions extends OwnGroup {
  /** Ports on 127.0.0.1 of the instances behind the proxy, balanced round-robin. */
  upstreams: readonly number[];
  /** The proxy's own port (a spare one when absent or 0). */
  port?: number;
  /** The largest request body passed on, in bytes: the largest the servers behind it take (theirs, from one place). */
  maxBodyBytes?: number;
  /**
   * The largest request head line (the request line or one header) passed on, in bytes: at least what the servers
   * behind it accept, so that nginx never refuses a request they would serve.
   */
  maxHeaderBytes?: number;
  /** Smaller body limits of single paths (an operation whose body is small), refused by nginx itself. */
  pathBodyLimits?: ReadonlyArray<{ path: string; bytes: number }>;
  log?: Log;
}

/** The contract's error envelope, as nginx writes it for a request it refuses itself. */
function envelope(code: string, message: string): string {
  // nginx's `return` takes the text in single quotes; none of the messages has one.
  return JSON.stringify({ success: false, error: { code, message } });
}

/**
 * The nginx configuration of a proxy in front of reference instances. The client's address goes on in
 * `X-Forwarded-For` (the instances trust 127.0.0.1 through TRUSTED_PROXIES); a request an instance fails to answer
 * because it died is passed to the next one only when it cannot have written (nginx resends no POST by default);
 * and every answer nginx makes itself (a request it refuses, no instance reachable) is the contract's error envelope
 * with a status the contract uses (the reference server's README, "Running on PostgreSQL and Redis").
 * One process, no workers (`master_process off`): a test that kills it leaves nothing behind on the port.
 */
export function nginxConfig(dir: string, port: number, options: NginxOptions): string {
  const asRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  const servers = options.upstreams.map((p) => `    server 127.0.0.1:${p} max_fails=1 fail_timeout=2s;`).join('\n');
  const body = envelope('INTERNAL_ERROR', 'No instance of the service could answer. Retry later.');
  const maxBody = options.maxBodyBytes ?? 16 * 1024 * 1024;
  const maxHeader = options.maxHeaderBytes ?? 16 * 1024;
  const proxy = `      proxy_pass http://reference;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_set_header Host $host;
      proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
      proxy_next_upstream error timeout;
      proxy_intercept_errors off;`;
  const pathLimits = (options.pathBodyLimits ?? [])
    .map(
      ({ path, bytes }) => `    location = ${path} {
      client_max_body_size ${bytes};
      error_page 400 494 = /.malformed;
      error_page 413 = @body_too_large_${bytes};
      error_page 502 503 504 = /.unavailable;
${proxy}
    }
    location @body_too_large_${bytes} {
      default_type application/json;
      return 400 '${envelope('INVALID_PARAMETER', `The request body is larger than ${bytes} bytes, the most this operation takes.`)}';
    }`,
    )
    .join('\n');
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
  client_max_body_size ${maxBody};
  # A request line or header line as long as the servers behind accept (their limit is on the whole head).
  large_client_header_buffers 4 ${maxHeader};
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
    # What nginx refuses itself is the contract's envelope with a status the contract uses, never its HTML page.
    # A request whose request line nginx could not read has no URI to match a named location by (nginx would answer
    # its own 500 instead): these pages are internal paths, which every refusal can reach.
    error_page 400 494 = /.malformed;
    error_page 413 = @body_too_large;
    error_page 414 = /.uri-too-long;
    # An internal path asked for by the client, or a path no location takes.
    error_page 404 = /.not-found;
    # TRACE, the one method nginx refuses itself: no operation takes it, as an instance answers any such method.
    error_page 405 = /.trace;
    # A Transfer-Encoding other than chunked.
    error_page 501 = /.transfer-encoding;
    # A request line of HTTP/2.0 or later on this HTTP/1 port.
    error_page 505 = /.http-version;
    error_page 500 502 503 504 = /.unavailable;
    location / {
${proxy}
      # A location's error_page replaces the server's, so each is repeated here.
      error_page 400 494 = /.malformed;
      error_page 413 = @body_too_large;
      error_page 502 503 504 = /.unavailable;
    }
    location = /.uri-too-long {
      internal;
      default_type application/json;
      return 400 '${envelope('INVALID_PARAMETER', `The request line is longer than ${maxHeader} bytes.`)}';
    }
    location = /.malformed {
      internal;
      default_type application/json;
      return 400 '${envelope('INVALID_PARAMETER', `The request is malformed, or a header line is longer than ${maxHeader} bytes.`)}';
    }
    location = /.not-found {
      internal;
      default_type application/json;
      return 404 '${envelope('NOT_FOUND', 'No operation at this path.')}';
    }
    location = /.trace {
      internal;
      default_type application/json;
      return 404 '${envelope('NOT_FOUND', 'No operation TRACE: no operation of this service takes the method.')}';
    }
    location = /.transfer-encoding {
      internal;
      default_type application/json;
      return 400 '${envelope('INVALID_PARAMETER', 'The Transfer-Encoding is not supported; send the body chunked or with a Content-Length.')}';
    }
    location = /.http-version {
      internal;
      default_type application/json;
      return 400 '${envelope('INVALID_PARAMETER', 'The HTTP version is not supported; send HTTP/1.1.')}';
    }
    location = /.unavailable {
      internal;
      default_type application/json;
      return 500 '${body}';
    }
${pathLimits}
    location @body_too_large {
      default_type application/json;
      return 400 '${envelope('INVALID_PARAMETER', `The request body is larger than ${maxBody} bytes, the most any operation takes.`)}';
    }
  }
}
`;
}

/** Debian's nginx (nginx-light, installed when missing) as a proxy in front of `upstreams`, in a temp dir of its own. */
export async function startNginx(options: NginxOptions): Promise<RunningNginx> {
  const log = options.log ?? ((l: string) => console.log(`[nginx] ${l}`));
  const binary = await ensureDebianPackage('nginx-light', NGINX, log);
  // Port 0 asks for a spare one, as it does of any server. A port given must be free: otherwise nginx cannot bind it
  // while another server answers on it, and the proxy would seem to be listening.
  if (options.port) await assertPortFree(options.port);
  const port = options.port || (await sparePort());
  const dir = mkdtempSync(join(tmpdir(), 'cls-nginx-'));
  for (const sub of ['body', 'proxy', 'fastcgi', 'uwsgi', 'scgi']) mkdirSync(join(dir, sub));
  const config = nginxConfig(dir, port, options);
  writeFileSync(join(dir, 'nginx.conf'), config);
  let server: RunningServer;
  try {
    server = await startServer('nginx', binary, ['-c', join(dir, 'nginx.conf'), '-p', dir], {
      port,
      log,
      ownGroup: options.ownGroup === true,
    });
  } catch (err) {
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
  const stop = server.stop;
  return Object.assign(server, {
    url: `http://127.0.0.1:${port}`,
    config,
    dir,
    async stop() {
      await stop();
      rmSync(dir, { recursive: true, force: true });
    },
  });
}
