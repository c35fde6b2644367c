'use strict';
// When a port cannot be had. Two errors mean "not available, pick another":
// EADDRINUSE (another program listens there) and EACCES (the system refuses
// it: on Windows, Hyper-V, WSL and Docker reserve whole ranges of ports, and
// binding one fails with EACCES even though nothing listens; on Linux and
// macOS, ports below 1024 need root).

const net = require('node:net');

const UNAVAILABLE = new Set(['EADDRINUSE', 'EACCES']);

/** True when `err` says the port cannot be used (as opposed to a real fault). */
function portUnavailable(err) {
  return Boolean(err) && UNAVAILABLE.has(err.code);
}

/** Why `port` cannot be used, as a clause ("port 3000 is in use by another program"), for EADDRINUSE or EACCES. */
function unavailableClause(code, port, platform = process.platform) {
  if (code === 'EADDRINUSE') return `port ${port} is in use by another program`;
  if (platform === 'win32') {
    return `Windows does not let programs use port ${port} (EACCES): Hyper-V, WSL and Docker reserve ranges of ports, and \`netsh interface ipv4 show excludedportrange protocol=tcp\` lists them`;
  }
  return `this user may not use port ${port} (EACCES)${port < 1024 ? ': ports below 1024 need root' : ''}`;
}

/** The same as a sentence. */
function whyUnavailable(code, port, platform = process.platform) {
  const clause = unavailableClause(code, port, platform);
  return `${clause[0].toUpperCase()}${clause.slice(1)}.`;
}

/**
 * Listens with `listen(port)` (a promise); if `port` is taken or refused,
 * says why through `onFallback(sentence)` and listens on any free port.
 */
async function listenOrAnyPort(listen, port, onFallback = () => {}) {
  try {
    return await listen(port);
  } catch (err) {
    if (!portUnavailable(err) || port === 0) throw err;
    onFallback(whyUnavailable(err.code, port));
    return listen(0);
  }
}

/** Resolves with 'free', or the error code that stops us listening on 127.0.0.1:`port`. */
function portStatus(port, createServer = net.createServer) {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', (err) => resolve(err.code || 'error'));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve('free')));
  });
}

module.exports = { portUnavailable, unavailableClause, whyUnavailable, listenOrAnyPort, portStatus };
