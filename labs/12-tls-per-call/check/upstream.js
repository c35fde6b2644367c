'use strict';
// The catalogue as lab 12's check runs it: the lab's own catalog.js server
// (started in the check's process, with certificates made for this run and
// kept in memory only), plus what the check needs to know and to do:
//
// - counts: the TLS handshakes it completed, full and resumed (a resumed
//   one skips the certificate but is still a new TCP and TLS connection),
//   the handshakes clients gave up on, and the product calls it answered;
// - the catalogue restarting: every open connection closed at once, and a
//   renewed certificate (the same CA and names, a new key) with new session
//   ticket keys, as a restarted and re-provisioned service has. An app that
//   trusts the CA connects again; one that switched verification off and
//   pinned the first certificate it saw refuses the renewed one, and a
//   session from before the restart cannot be resumed to skip it;
// - someone else answering at its address: a certificate from another CA
//   (which calls itself by the trusted CA's name, as anyone can), or one
//   from the right CA for another name. Each comes with ticket keys of its
//   own, as an impostor's would: a client cannot resume a session it had
//   with the real catalogue and so skip the certificate.
//
// startCatalogService() is how the check starts a catalogue for an app, and
// what it hands the app (CATALOG_URL and CATALOG_CA, as catalog.js's
// startCatalog() reads them): one function, so that `workbook run`, `load`
// and `profile` can start the catalogue exactly as the check does.

const crypto = require('node:crypto');
const { setTimeout: sleep } = require('node:timers/promises');

// The lab's catalog.js, beside the app: loaded when a check runs, so that a
// learner's edit to it can break a check but nothing else.
const catalogModule = () => require('../catalog');

const TRUSTED_CA_NAME = 'Example Shop internal CA';

/**
 * The certificates of one check: the CA the app is told to trust; the
 * catalogue's certificate from it, and the renewed one it presents after
 * its restart; another CA (under the same name) and a certificate from it
 * for the same address; and a certificate from the trusted CA for another
 * name.
 */
async function makeCertificates() {
  const { makeAuthority, makeServerCertificate } = catalogModule();
  const [trusted, other] = await Promise.all([makeAuthority(TRUSTED_CA_NAME), makeAuthority(TRUSTED_CA_NAME)]);
  const [genuine, renewed, foreign, misnamed] = await Promise.all([
    makeServerCertificate(trusted),
    makeServerCertificate(trusted),
    makeServerCertificate(other),
    makeServerCertificate(trusted, { ips: [], names: ['billing.internal'] }),
  ]);
  return { ca: trusted.cert, genuine, renewed, foreign, misnamed };
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
  // The ticket keys of the catalogue after its restart: new ones, as a
  // restarted process makes (Node draws them at random for each server).
  const restartedTicketKeys = crypto.randomBytes(48);
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
     * The catalogue restarts with its renewed certificate (`renewed`), or
     * someone else answers at its address (`foreign`, `misnamed`): new
     * connections get that certificate, and every open connection is
     * closed, so the app must connect again. Waits `settleMs` for the app
     * to see its connections close.
     */
    async present(which, { settleMs }) {
      const keys = which === 'renewed' ? restartedTicketKeys : crypto.randomBytes(48);
      server.setSecureContext({ ...certificates[which], ticketKeys: keys });
      server.closeAllConnections();
      await sleep(settleMs);
    },
  };
}

/**
 * A catalogue for one app, as the check runs it, and the environment the
 * app is given to find it and to trust its CA. Certificates are made for
 * it unless given (the check gives the same ones to the learner's app's
 * catalogue and to the reference's).
 * @param {{certificates?: object, revision?: () => number}} [options]
 * @returns {Promise<{upstream: object, certificates: object, env: {CATALOG_URL: string, CATALOG_CA: string}, close: () => Promise<void>}>}
 */
async function startCatalogService({ certificates, revision = () => 1 } = {}) {
  const certs = certificates || (await makeCertificates());
  const upstream = await startUpstream({ certificates: certs, revision });
  return { upstream, certificates: certs, env: { CATALOG_URL: upstream.url, CATALOG_CA: certs.ca }, close: upstream.close };
}

/** What changed between two readings of the counters. */
function countsSince(before, after) {
  return Object.fromEntries(Object.keys(after).map((k) => [k, after[k] - before[k]]));
}

module.exports = { makeCertificates, startUpstream, startCatalogService, countsSince, catalogModule };
