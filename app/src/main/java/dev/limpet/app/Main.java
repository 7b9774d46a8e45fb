package dev.limpet.app;

public final class Main {
    public static void main(String[] args) {
        System.out.println("limpet 0.1.0");
    }
}
