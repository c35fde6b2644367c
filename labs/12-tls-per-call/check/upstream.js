'use strict';
// The catalogue as lab 12's check runs it: the lab's own catalog.js server
// (started in the check's process, with certificates made for this run and
// kept in memory only), plus what the check needs to know and to do:
//
// - counts: the TLS handshakes it completed, full and resumed (a resumed
//   one skips the certificate but is still a new TCP and TLS connection),
//   the handshakes clients gave up on, and the product calls it answered;
// - the catalogue restarting: every open connection closed at once;
// - someone else answering at its address: a certificate from another CA,
//   or one from the right CA for another name. Each comes with ticket keys
//   of its own, as an impostor's would: a client cannot resume a session it
//   had with the real catalogue and so skip the certificate.

const crypto = require('node:crypto');
const { setTimeout: sleep } = require('node:timers/promises');

// The lab's catalog.js, beside the app: loaded when a check runs, so that a
// learner's edit to it can break a check but nothing else.
const catalogModule = () => require('../catalog');

/**
 * The certificates of one check: the CA the app is told to trust and the
 * catalogue's certificate from it; another CA and a certificate from it for
 * the same address; and a certificate from the trusted CA for another name.
 */
async function makeCertificates() {
  const { makeAuthority, makeServerCertificate } = catalogModule();
  const [trusted, other] = await Promise.all([makeAuthority('Example Shop internal CA'), makeAuthority('Someone else\'s CA')]);
  const [genuine, foreign, misnamed] = await Promise.all([
    makeServerCertificate(trusted),
    makeServerCertificate(other),
    makeServerCertificate(trusted, { ips: [], names: ['billing.internal'] }),
  ]);
  return { ca: trusted.cert, genuine, foreign, misnamed };
}

/**
 * Starts one catalogue for one app.
 * @param {object} options
 * @param {object} options.certificates from makeCertificates()
 * @param {() => number} options.revision the data's current revision
 */
async function startUpstream({ certificates, revision }) {
  const { createCatalog } = catalogModule();
  let delayMs = 0;
  const counts = { full: 0, resumed: 0, refused: 0, calls: 0 };
  let inFlight = 0;
  const inFlightAtArrival = [];
  let recordInFlight = false;
  const catalog = await createCatalog({
    certificate: certificates.genuine,
    delayMs: () => delayMs,
    revision,
    onRequest: () => {
      counts.calls++;
      if (recordInFlight) inFlightAtArrival.push(inFlight);
    },
  });
  const { server } = catalog;
  server.on('secureConnection', (socket) => {
    if (socket.isSessionReused()) counts.resumed++;
    else counts.full++;
  });
  // A client that refuses the certificate aborts the handshake.
  server.on('tlsClientError', () => counts.refused++);
  server.on('request', (req, res) => {
    inFlight++;
    res.once('close', () => inFlight--);
  });
  const ticketKeys = server.getTicketKeys();
  return {
    url: catalog.url,
    close: catalog.close,
    /** A copy of the counters, to subtract one reading from another. */
    counts: () => ({ ...counts }),
    setDelay(ms) {
      delayMs = ms;
    },
    /** Starts (or stops) recording how many calls were in flight when each call arrived. */
    recordInFlight(on) {
      recordInFlight = on;
      if (on) inFlightAtArrival.length = 0;
      return [...inFlightAtArrival];
    },
    /**
     * The catalogue restarts (`genuine`), or someone else answers at its
     * address (`foreign`, `misnamed`): new connections get that certificate,
     * and every open connection is closed, so the app must connect again.
     * Waits `settleMs` for the app to see its connections close.
     */
    async present(which, { settleMs }) {
      const keys = which === 'genuine' ? ticketKeys : crypto.randomBytes(48);
      server.setSecureContext({ ...certificates[which], ticketKeys: keys });
      server.closeAllConnections();
      await sleep(settleMs);
    },
  };
}

/** What changed between two readings of the counters. */
function countsSince(before, after) {
  return Object.fromEntries(Object.keys(after).map((k) => [k, after[k] - before[k]]));
}

module.exports = { makeCertificates, startUpstream, countsSince, catalogModule };
