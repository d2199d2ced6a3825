// The Prism mock (`@cls-api/mock`: its front server and the Prism process behind it) as a child process of the
// harness, so that the memory and CPU of both are measured together as the mock's.
import { startMock } from '@cls-api/mock';
import { announce } from './announce.js';

const mock = await startMock({ port: 0, host: '127.0.0.1' });
announce(mock.url, () => mock.close());
