package io.github.rewardsim;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.SecureRandom;
import java.security.Signature;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.interfaces.RSAPrivateCrtKey;
import java.security.spec.PKCS8EncodedKeySpec;
import java.security.spec.RSAPublicKeySpec;
import java.security.spec.X509EncodedKeySpec;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.Base64;

/**
 * The PEM, X.509 and PKCS#12 forms a service reads its key in, with the JDK
 * alone: it has no public API to make a certificate, so the self-signed
 * one of a library-made key is written here in DER.
 */
final class Keys {
    private static final SecureRandom RANDOM = new SecureRandom();
    private static final byte[] SHA256_WITH_RSA = oid(1, 2, 840, 113549, 1, 1, 11);
    private static final byte[] COMMON_NAME = oid(2, 5, 4, 3);

    private Keys() {}

    static KeyPair generate() {
        try {
            KeyPairGenerator g = KeyPairGenerator.getInstance("RSA");
            g.initialize(2048, RANDOM);
            return g.generateKeyPair();
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }

    static String pem(String type, byte[] der) {
        return "-----BEGIN " + type + "-----\n"
                + Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII)).encodeToString(der)
                + "\n-----END " + type + "-----\n";
    }

    // The base64 body of the first PEM block of type, or null.
    private static byte[] block(String pem, String type) {
        String begin = "-----BEGIN " + type + "-----";
        int b = pem.indexOf(begin);
        if (b < 0) return null;
        int e = pem.indexOf("-----END " + type + "-----", b);
        if (e < 0) throw new IllegalArgumentException("PEM block " + type + " has no END line");
        return Base64.getMimeDecoder().decode(pem.substring(b + begin.length(), e));
    }

    /** A PKCS#8 PEM RSA private key. */
    static PrivateKey privateKey(String pem) {
        byte[] der = block(pem, "PRIVATE KEY");
        if (der == null) {
            if (pem.contains("BEGIN RSA PRIVATE KEY")) {
                throw new IllegalArgumentException("privateKeyPem is PKCS#1 (BEGIN RSA PRIVATE KEY): give it as PKCS#8"
                        + " (openssl pkcs8 -topk8 -nocrypt -in key.pem)");
            }
            throw new IllegalArgumentException("privateKeyPem holds no -----BEGIN PRIVATE KEY----- block (PKCS#8, unencrypted)");
        }
        try {
            return KeyFactory.getInstance("RSA").generatePrivate(new PKCS8EncodedKeySpec(der));
        } catch (GeneralSecurityException e) {
            throw new IllegalArgumentException("privateKeyPem: not an RSA PKCS#8 key: " + e.getMessage(), e);
        }
    }

    /** The public half of an RSA private key that carries it (every PKCS#8 RSA key the JDK reads does). */
    static PublicKey publicOf(PrivateKey key) {
        if (!(key instanceof RSAPrivateCrtKey k)) throw new IllegalArgumentException("privateKeyPem: an RSA CRT key is needed");
        try {
            return KeyFactory.getInstance("RSA").generatePublic(new RSAPublicKeySpec(k.getModulus(), k.getPublicExponent()));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The certificate of a PEM holding one, else null (a bare PUBLIC KEY). */
    static X509Certificate certificate(String pem) {
        byte[] der = block(pem, "CERTIFICATE");
        if (der == null) return null;
        try {
            return (X509Certificate) CertificateFactory.getInstance("X.509").generateCertificate(new ByteArrayInputStream(der));
        } catch (GeneralSecurityException e) {
            throw new IllegalArgumentException("certificatePem: not an X.509 certificate: " + e.getMessage(), e);
        }
    }

    /** The public key of a certificate or PUBLIC KEY PEM. */
    static PublicKey publicKey(String pem) {
        X509Certificate c = certificate(pem);
        if (c != null) return c.getPublicKey();
        byte[] der = block(pem, "PUBLIC KEY");
        if (der == null) throw new IllegalArgumentException("certificatePem holds neither a CERTIFICATE nor a PUBLIC KEY block");
        try {
            return KeyFactory.getInstance("RSA").generatePublic(new X509EncodedKeySpec(der));
        } catch (GeneralSecurityException e) {
            throw new IllegalArgumentException("certificatePem: not an RSA public key: " + e.getMessage(), e);
        }
    }

    /** A self-signed X.509 v3 certificate for key, CN=cn, valid from a day ago for ten years. */
    static String selfSigned(KeyPair key, String cn) {
        byte[] alg = seq(SHA256_WITH_RSA, new byte[] {5, 0});
        byte[] name = seq(tlv(0x31, seq(COMMON_NAME, tlv(0x0C, cn.getBytes(StandardCharsets.UTF_8)))));
        ZonedDateTime now = ZonedDateTime.now(ZoneOffset.UTC);
        byte[] validity = seq(utcTime(now.minusDays(1)), utcTime(now.plusYears(10)));
        byte[] serial = tlv(0x02, new BigInteger(63, RANDOM).add(BigInteger.ONE).toByteArray());
        byte[] tbs = seq(tlv(0xA0, tlv(0x02, new byte[] {2})), serial, alg, name, validity, name, key.getPublic().getEncoded());
        try {
            Signature s = Signature.getInstance("SHA256withRSA");
            s.initSign(key.getPrivate());
            s.update(tbs);
            byte[] sig = s.sign();
            byte[] bits = new byte[sig.length + 1];
            System.arraycopy(sig, 0, bits, 1, sig.length);
            return pem("CERTIFICATE", seq(tbs, alg, tlv(0x03, bits)));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }

    /** A PKCS#12 keystore holding key and its certificate under alias. */
    static byte[] pkcs12(String alias, PrivateKey key, X509Certificate cert, char[] password) {
        try {
            KeyStore ks = KeyStore.getInstance("PKCS12");
            ks.load(null, null);
            ks.setKeyEntry(alias, key, password, new Certificate[] {cert});
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            ks.store(out, password);
            return out.toByteArray();
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("PKCS#12: " + e.getMessage(), e);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static byte[] utcTime(ZonedDateTime t) {
        return tlv(0x17, t.format(DateTimeFormatter.ofPattern("yyMMddHHmmss'Z'")).getBytes(StandardCharsets.US_ASCII));
    }

    private static byte[] seq(byte[]... parts) {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        for (byte[] p : parts) b.writeBytes(p);
        return tlv(0x30, b.toByteArray());
    }

    // One DER element: tag, definite length, content.
    private static byte[] tlv(int tag, byte[] content) {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        b.write(tag);
        int n = content.length;
        if (n < 0x80) {
            b.write(n);
        } else {
            byte[] len = BigInteger.valueOf(n).toByteArray();
            int skip = len[0] == 0 ? 1 : 0;
            b.write(0x80 | (len.length - skip));
            b.write(len, skip, len.length - skip);
        }
        b.writeBytes(content);
        return b.toByteArray();
    }

    private static byte[] oid(int... arcs) {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        b.write(arcs[0] * 40 + arcs[1]);
        for (int i = 2; i < arcs.length; i++) {
            int v = arcs[i];
            int shift = 28;
            while (shift > 0 && (v >> shift) == 0) shift -= 7;
            for (; shift > 0; shift -= 7) b.write(0x80 | ((v >> shift) & 0x7F));
            b.write(v & 0x7F);
        }
        return tlv(0x06, b.toByteArray());
    }
}
