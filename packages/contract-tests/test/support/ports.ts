// A loopback port nothing listens on, where a test needs no server at all: one from outside the kernel's ephemeral
// range, so that no listen(0) of the suites running beside the test, nor an outgoing connection, takes it before the
// kit connects to it (@cls-api/test-servers).
export { sparePort as closedPort } from '@cls-api/test-servers';
