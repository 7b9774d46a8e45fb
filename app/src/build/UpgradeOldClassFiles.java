import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.classfile.ClassFile;
import java.lang.classfile.ClassHierarchyResolver;
import java.lang.classfile.ClassModel;
import java.lang.classfile.ClassTransform;
import java.lang.classfile.CodeTransform;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.zip.ZipEntry;
import java.util.zip.ZipInputStream;
import java.util.zip.ZipOutputStream;

/**
 * Build step, run on the shaded jar by the JDK's source launcher (app/pom.xml):
 * {@code java UpgradeOldClassFiles.java JAR PACKAGE/...}. Rewrites each class file of the named
 * packages that is older than Java 6 (major version below 50) as a Java 8 class file with stack
 * maps (the JDK's class-file API recomputes them); the code itself is unchanged. Only the named
 * packages: the start-up path needs picocli, and other old classes in the jar are left as shipped.
 *
 * <p>Why: the JVM's AOT cache skips classes of such old versions ("Old class has been linked"), and
 * picocli ships as Java 5 class files, so every client verb loaded and verified ~170 picocli
 * classes at start-up even with the cache. Upgraded, they come from the cache like the rest.
 * A jar with nothing to upgrade is left untouched.
 */
public final class UpgradeOldClassFiles {
    private static final int FIRST_WITH_STACK_MAPS = 50;
    private static final int TARGET_MAJOR = 52;

    public static void main(String[] args) throws IOException {
        if (args.length < 2) {
            System.err.println("usage: java UpgradeOldClassFiles.java JAR PACKAGE/...");
            System.exit(2);
        }
        Path jar = Path.of(args[0]);
        List<String> packages = List.of(args).subList(1, args.length);
        Map<String, byte[]> entries = read(jar);
        ClassHierarchyResolver inJar = ClassHierarchyResolver.ofResourceParsing(desc -> {
            String d = desc.descriptorString();
            byte[] bytes = entries.get(d.substring(1, d.length() - 1) + ".class");
            return bytes == null ? null : (InputStream) new ByteArrayInputStream(bytes);
        });
        ClassFile classFile = ClassFile.of(ClassFile.StackMapsOption.GENERATE_STACK_MAPS,
                ClassFile.ClassHierarchyResolverOption.of(ClassHierarchyResolver.defaultResolver().orElse(inJar)));
        ClassTransform upgrade = ClassTransform.transformingMethodBodies(CodeTransform.ACCEPT_ALL)
                .andThen(ClassTransform.endHandler(b -> b.withVersion(TARGET_MAJOR, 0)));
        int upgraded = 0;
        for (Map.Entry<String, byte[]> e : entries.entrySet()) {
            if (!e.getKey().endsWith(".class") || packages.stream().noneMatch(e.getKey()::startsWith)) {
                continue;
            }
            ClassModel model = classFile.parse(e.getValue());
            if (model.majorVersion() < FIRST_WITH_STACK_MAPS) {
                e.setValue(classFile.transformClass(model, upgrade));
                upgraded++;
            }
        }
        if (upgraded > 0) {
            write(jar, entries);
        }
        System.out.println("UpgradeOldClassFiles: " + upgraded + " class files in " + jar.getFileName() + " upgraded to Java 8 with stack maps");
    }

    private static Map<String, byte[]> read(Path jar) throws IOException {
        Map<String, byte[]> entries = new LinkedHashMap<>();
        try (ZipInputStream in = new ZipInputStream(Files.newInputStream(jar))) {
            for (ZipEntry e = in.getNextEntry(); e != null; e = in.getNextEntry()) {
                entries.put(e.getName(), in.readAllBytes());
            }
        }
        return entries;
    }

    /** Writes the entries in their order (the manifest stays first) to a new file, then moves it over the jar. */
    private static void write(Path jar, Map<String, byte[]> entries) throws IOException {
        Path tmp = jar.resolveSibling(jar.getFileName() + ".upgrading");
        try (OutputStream file = Files.newOutputStream(tmp); ZipOutputStream out = new ZipOutputStream(file)) {
            for (Map.Entry<String, byte[]> e : entries.entrySet()) {
                out.putNextEntry(new ZipEntry(e.getKey()));
                out.write(e.getValue());
                out.closeEntry();
            }
        }
        Files.move(tmp, jar, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }
}
