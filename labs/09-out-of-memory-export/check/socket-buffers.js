'use strict';
// How much of a download the operating system takes off a writer's hands
// when the reader, on the same machine, reads nothing: the writer's socket
// send buffer plus the reader's receive window. None of it is in the app's
// memory, and an app that writes without waiting for 'drain' holds only
// what the kernel did not take. The check measures this share before it
// plans its exports: each export it judges must be larger than the share by
// a margin, or a correct app and a wrong one would look alike (both have
// handed the whole export to the kernel). Linux's defaults give about 4 MB
// (net.ipv4.tcp_wmem's maximum bounds the send buffer); macOS and Windows
// tune theirs differently, and a tuned server can give far more.

const net = require('node:net');
const { once } = require('node:events');
const { setTimeout: sleep } = require('node:timers/promises');

const MB = 1024 * 1024;

/**
 * Writes `writeMb` to a local client that reads nothing, ignoring write()'s
 * return value, waits for the kernel to take what it will, and returns how
 * many bytes left the writer's process.
 * @param {{writeMb?: number, settleMs?: number}} [options]
 * @returns {Promise<{taken:number, written:number}>}
 */
async function kernelShare({ writeMb = 24, settleMs = 200 } = {}) {
  const server = net.createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const client = net.connect(server.address().port, '127.0.0.1');
  client.on('error', () => {});
  client.pause(); // reads nothing
  const [socket] = await once(server, 'connection');
  socket.on('error', () => {});
  try {
    const piece = Buffer.alloc(64 * 1024, 'x'); // the same Buffer each time: queued by reference, no copies
    let written = 0;
    while (written < writeMb * MB) {
      socket.write(piece);
      written += piece.length;
    }
    await sleep(settleMs);
    return { taken: written - socket.writableLength, written };
  } finally {
    socket.destroy();
    client.destroy();
    server.close();
  }
}

module.exports = { kernelShare };
