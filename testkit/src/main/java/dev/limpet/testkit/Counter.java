package dev.limpet.testkit;

/**
 * Prints {@code line 1}, {@code line 2}, ... every {@code intervalMillis}, then exits 0.
 *
 * <p>Usage: {@code Counter [count=10] [intervalMillis=100]}; count 0 counts forever.
 */
public final class Counter {
    private Counter() {}

    public static void main(String[] args) throws InterruptedException {
        long count = args.length > 0 ? Long.parseLong(args[0]) : 10;
        long intervalMillis = args.length > 1 ? Long.parseLong(args[1]) : 100;
        for (long n = 1; count == 0 || n <= count; n++) {
            System.out.println("line " + n);
            System.out.flush();
            if (count == 0 || n < count) {
                Thread.sleep(intervalMillis);
            }
        }
    }
}
