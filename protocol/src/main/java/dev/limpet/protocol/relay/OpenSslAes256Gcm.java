package dev.limpet.protocol.relay;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link Aes256Gcm} by the system's OpenSSL ({@value #LIBRARY}) through FFM: AES-NI and carry-less
 * multiplication whichever compiler the JVM runs. The arrays go to OpenSSL as they are: the calls
 * are critical downcalls (no copy, and no garbage collection during the microseconds one takes).
 * A context per message, freed before the call returns: no native state outlives a call.
 */
final class OpenSslAes256Gcm implements Aes256Gcm {
    static final String LIBRARY = "libcrypto.so.3";
    private static final int EVP_CTRL_GCM_GET_TAG = 0x10;
    private static final int EVP_CTRL_GCM_SET_TAG = 0x11;

    private final byte[] key;

    OpenSslAes256Gcm(byte[] key) {
        if (!available()) {
            throw new IllegalStateException(LIBRARY + " could not be loaded");
        }
        // OpenSSL reads a key and a nonce of the cipher's lengths from the arrays it is given,
        // whatever their size: checked here, where Java still bounds the reads.
        Aes256Gcm.requireKey(key);
        this.key = key.clone();
    }

    /** Whether {@value #LIBRARY} loaded with every function this needs (bound on first use; a failure is logged once). */
    static boolean available() {
        return Bound.FUNCTIONS != null;
    }

    @Override
    public void seal(byte[] nonce, byte[] aad, byte[] in, int inOff, int len, byte[] out, int outOff) {
        requireNonce(nonce);
        Functions f = Bound.FUNCTIONS;
        MemorySegment ctx = f.begin(key, nonce, true);
        try {
            int[] written = new int[1];
            f.update(ctx, MemorySegment.NULL, written, MemorySegment.ofArray(aad));
            f.update(ctx, slice(out, outOff, len), written, slice(in, inOff, len));
            if (written[0] != len || !f.finish(ctx, slice(out, outOff + len, 0), written) || written[0] != 0) {
                throw new IllegalStateException("OpenSSL's AES-GCM wrote an unexpected length");
            }
            f.ctrl(ctx, EVP_CTRL_GCM_GET_TAG, slice(out, outOff + len, TAG_BYTES));
        } finally {
            f.free(ctx);
        }
    }

    @Override
    public byte[] open(byte[] nonce, byte[] aad, byte[] in, int inOff, int len) {
        requireNonce(nonce);
        if (len < TAG_BYTES) {
            return null;
        }
        int textLen = len - TAG_BYTES;
        byte[] plain = new byte[textLen];
        Functions f = Bound.FUNCTIONS;
        MemorySegment ctx = f.begin(key, nonce, false);
        try {
            int[] written = new int[1];
            f.update(ctx, MemorySegment.NULL, written, MemorySegment.ofArray(aad));
            f.update(ctx, MemorySegment.ofArray(plain), written, slice(in, inOff, textLen));
            f.ctrl(ctx, EVP_CTRL_GCM_SET_TAG, slice(in, inOff + textLen, TAG_BYTES));
            return f.finish(ctx, MemorySegment.ofArray(plain).asSlice(textLen), written) ? plain : null;
        } finally {
            f.free(ctx);
        }
    }

    private static void requireNonce(byte[] nonce) {
        if (nonce.length != NONCE_BYTES) {
            throw new IllegalArgumentException("AES-GCM here takes a 12-byte nonce, not " + nonce.length);
        }
    }

    private static MemorySegment slice(byte[] a, int off, int len) {
        return MemorySegment.ofArray(a).asSlice(off, len);
    }

    /** Bound on first use: loading the library and binding its functions spins classes, paid only by a process that seals. */
    private static final class Bound {
        static final Functions FUNCTIONS = Functions.load();
    }

    /** The EVP functions, bound. */
    private record Functions(MethodHandle ctxNew, MethodHandle ctxFree, MemorySegment aes256Gcm, MethodHandle init,
                             MethodHandle update, MethodHandle finish, MethodHandle ctrl) {
        private static final Logger LOG = LoggerFactory.getLogger(OpenSslAes256Gcm.class);

        static Functions load() {
            try {
                Linker linker = Linker.nativeLinker();
                SymbolLookup lib = SymbolLookup.libraryLookup(LIBRARY, Arena.global());
                Linker.Option heap = Linker.Option.critical(true);
                MethodHandle cipher = linker.downcallHandle(lib.findOrThrow("EVP_aes_256_gcm"), FunctionDescriptor.of(ADDRESS));
                return new Functions(
                        linker.downcallHandle(lib.findOrThrow("EVP_CIPHER_CTX_new"), FunctionDescriptor.of(ADDRESS)),
                        linker.downcallHandle(lib.findOrThrow("EVP_CIPHER_CTX_free"), FunctionDescriptor.ofVoid(ADDRESS)),
                        (MemorySegment) cipher.invokeExact(),
                        // EVP_CipherInit_ex(ctx, cipher, engine, key, iv, enc)
                        linker.downcallHandle(lib.findOrThrow("EVP_CipherInit_ex"),
                                FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS, ADDRESS, ADDRESS, JAVA_INT), heap),
                        // EVP_CipherUpdate(ctx, out, &outl, in, inl)
                        linker.downcallHandle(lib.findOrThrow("EVP_CipherUpdate"),
                                FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS, ADDRESS, JAVA_INT), heap),
                        // EVP_CipherFinal_ex(ctx, out, &outl)
                        linker.downcallHandle(lib.findOrThrow("EVP_CipherFinal_ex"),
                                FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS), heap),
                        // EVP_CIPHER_CTX_ctrl(ctx, type, arg, ptr)
                        linker.downcallHandle(lib.findOrThrow("EVP_CIPHER_CTX_ctrl"),
                                FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT, JAVA_INT, ADDRESS), heap));
            } catch (Throwable e) {
                LOG.warn("{} could not be loaded ({}): end-to-end encryption (relayed clients) uses the JDK's AES-GCM, "
                        + "about 30 ns of CPU a byte in a JVM without C2 against well under 1 with OpenSSL", LIBRARY, e.toString());
                return null;
            }
        }

        /** A new context set up for one message; {@link #free} it. */
        MemorySegment begin(byte[] key, byte[] nonce, boolean encrypt) {
            MemorySegment ctx;
            try {
                ctx = (MemorySegment) ctxNew.invokeExact();
            } catch (Throwable e) {
                throw failed("EVP_CIPHER_CTX_new", e);
            }
            if (ctx.equals(MemorySegment.NULL)) {
                throw new IllegalStateException("EVP_CIPHER_CTX_new: out of memory");
            }
            int ok;
            try {
                ok = (int) init.invokeExact(ctx, aes256Gcm, MemorySegment.NULL, MemorySegment.ofArray(key), MemorySegment.ofArray(nonce),
                        encrypt ? 1 : 0);
            } catch (Throwable e) {
                free(ctx);
                throw failed("EVP_CipherInit_ex", e);
            }
            if (ok != 1) {
                free(ctx);
                throw new IllegalStateException("EVP_CipherInit_ex failed");
            }
            return ctx;
        }

        void update(MemorySegment ctx, MemorySegment out, int[] written, MemorySegment in) {
            int ok;
            try {
                ok = (int) update.invokeExact(ctx, out, MemorySegment.ofArray(written), in, (int) in.byteSize());
            } catch (Throwable e) {
                throw failed("EVP_CipherUpdate", e);
            }
            if (ok != 1) {
                throw new IllegalStateException("EVP_CipherUpdate failed");
            }
        }

        /** False when a message being opened does not authenticate. */
        boolean finish(MemorySegment ctx, MemorySegment out, int[] written) {
            try {
                return (int) finish.invokeExact(ctx, out, MemorySegment.ofArray(written)) == 1;
            } catch (Throwable e) {
                throw failed("EVP_CipherFinal_ex", e);
            }
        }

        void ctrl(MemorySegment ctx, int type, MemorySegment tag) {
            int ok;
            try {
                ok = (int) ctrl.invokeExact(ctx, type, (int) tag.byteSize(), tag);
            } catch (Throwable e) {
                throw failed("EVP_CIPHER_CTX_ctrl", e);
            }
            if (ok != 1) {
                throw new IllegalStateException("EVP_CIPHER_CTX_ctrl(" + type + ") failed");
            }
        }

        void free(MemorySegment ctx) {
            try {
                ctxFree.invokeExact(ctx);
            } catch (Throwable e) {
                throw failed("EVP_CIPHER_CTX_free", e);
            }
        }

        private static IllegalStateException failed(String function, Throwable e) {
            return new IllegalStateException(function + ": " + e, e);
        }
    }
}
