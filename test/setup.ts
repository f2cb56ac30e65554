// Global test setup: refuse any real network use. nock blocks global fetch / node:http to
// anything but loopback; undici clients in this project only ever receive loopback base URLs
// in tests (the emulator), which the helpers assert.
import nock from 'nock';

nock.disableNetConnect();
nock.enableNetConnect((host) => host.startsWith('127.0.0.1') || host.startsWith('localhost'));
