"use strict";
// A self-signed X.509 certificate for a channel's RSA key, so that
// certificatePem is a certificate wherever a service or a keystore wants
// one. Node can parse certificates but not make them; this is the minimal
// DER a certificate needs (RFC 5280: version 3, no extensions), signed
// with SHA-256 with RSA by the key itself.
const { createPublicKey, randomBytes, sign } = require("node:crypto");

function der(tag, content) {
  const n = content.length;
  let len;
  if (n < 0x80) len = Buffer.from([n]);
  else {
    const bytes = [];
    for (let v = n; v > 0; v >>= 8) bytes.unshift(v & 0xff);
    len = Buffer.from([0x80 | bytes.length, ...bytes]);
  }
  return Buffer.concat([Buffer.from([tag]), len, content]);
}

const seq = (...parts) => der(0x30, Buffer.concat(parts));
const set = (...parts) => der(0x31, Buffer.concat(parts));
const NULL = Buffer.from([0x05, 0x00]);
// OIDs, DER-encoded: sha256WithRSAEncryption (1.2.840.113549.1.1.11) and commonName (2.5.4.3).
const SHA256_RSA = der(0x06, Buffer.from([0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01, 0x0b]));
const CN = der(0x06, Buffer.from([0x55, 0x04, 0x03]));

function integer(buf) {
  return der(0x02, buf[0] & 0x80 ? Buffer.concat([Buffer.from([0]), buf]) : buf);
}

// UTCTime before 2050, GeneralizedTime from then on (RFC 5280 4.1.2.5).
function time(d) {
  const iso = d.toISOString().replace(/[-:T]/g, "").slice(0, 14) + "Z";
  return d.getUTCFullYear() < 2050 ? der(0x17, Buffer.from(iso.slice(2))) : der(0x18, Buffer.from(iso));
}

/** A PEM certificate for privateKey (a KeyObject), subject and issuer CN=commonName, valid from yesterday for years. */
function selfSignedCertificate(privateKey, commonName, years = 10) {
  const spki = createPublicKey(privateKey).export({ type: "spki", format: "der" });
  const name = seq(set(seq(CN, der(0x0c, Buffer.from(commonName, "utf8")))));
  const from = new Date(Date.now() - 24 * 3600 * 1000);
  const to = new Date(from.getTime() + years * 365 * 24 * 3600 * 1000);
  // Positive and minimally encoded (DER): a leading 0x00 byte, one time in
  // 128, made Go's x509 refuse the certificate ("malformed serial number").
  const serial = randomBytes(16);
  serial[0] = (serial[0] & 0x7f) | 0x40;
  const algorithm = seq(SHA256_RSA, NULL);
  const tbs = seq(der(0xa0, integer(Buffer.from([2]))), integer(serial), algorithm, name, seq(time(from), time(to)), name, spki);
  const signature = sign("sha256", tbs, privateKey);
  const cert = seq(tbs, algorithm, der(0x03, Buffer.concat([Buffer.from([0]), signature])));
  const b64 = cert.toString("base64").match(/.{1,64}/g).join("\n");
  return `-----BEGIN CERTIFICATE-----\n${b64}\n-----END CERTIFICATE-----\n`;
}

module.exports = { selfSignedCertificate };
