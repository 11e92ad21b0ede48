"use strict";
// A channel's credentials as files, for a service that reads files
// (ch.writeFiles), and a temporary folder that goes with the test
// (tempDir). What holds a secret is its owner's alone (mode 0600).
const { chmod, mkdir, mkdtemp, open, rm, writeFile } = require("node:fs/promises");
const { tmpdir } = require("node:os");
const { join, resolve } = require("node:path");

// Writes text to file, readable and writable by its owner alone: made so
// before it holds the secret, and an existing file narrowed first.
async function writeSecret(file, text) {
  await chmod(file, 0o600).catch((err) => { if (err.code !== "ENOENT") throw err; });
  const fh = await open(file, "w", 0o600);
  try {
    await fh.writeFile(text);
  } finally {
    await fh.close();
  }
}

function dotenvLine(name, value) {
  return `${name}=${/^[\w@%+=:,./-]*$/.test(value) ? value : JSON.stringify(value)}\n`;
}

/**
 * Writes key.pem (when the library holds the key; 0600), cert.pem,
 * service.pem and channel.env (0600: ch.env(prefix) with the PEMs replaced
 * by <prefix>PRIVATE_KEY_FILE, CERTIFICATE_FILE and SERVICE_CERTIFICATE_FILE,
 * absolute paths) into dir, created when missing; resolves with dir.
 */
async function writeChannelFiles(ch, dir, { prefix = "PARTNER_" } = {}) {
  const abs = resolve(dir);
  await mkdir(abs, { recursive: true });
  const c = ch.credentials;
  const files = {};
  if (c.privateKeyPem) {
    files.PRIVATE_KEY_FILE = join(abs, "key.pem");
    await writeSecret(files.PRIVATE_KEY_FILE, c.privateKeyPem);
  }
  files.CERTIFICATE_FILE = join(abs, "cert.pem");
  await writeFile(files.CERTIFICATE_FILE, c.certificatePem);
  files.SERVICE_CERTIFICATE_FILE = join(abs, "service.pem");
  await writeFile(files.SERVICE_CERTIFICATE_FILE, c.serviceCertificatePem);
  const pems = new Set(["PRIVATE_KEY", "CERTIFICATE", "SERVICE_CERTIFICATE"].map((k) => prefix + k));
  let env = "";
  for (const [k, v] of Object.entries(ch.env(prefix))) if (!pems.has(k)) env += dotenvLine(k, v);
  for (const [k, v] of Object.entries(files)) env += dotenvLine(prefix + k, v);
  await writeSecret(join(abs, "channel.env"), env);
  return abs;
}

/**
 * A fresh folder under the system's temporary folder, removed when the test
 * ends: tempDir(t) with node:test's test context (t.after), or tempDir() and
 * remove it yourself (Jest, Vitest: in afterEach).
 */
async function tempDir(t) {
  const dir = await mkdtemp(join(tmpdir(), "rewardsim-files-"));
  t?.after?.(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

module.exports = { writeChannelFiles, tempDir };
