package dev.limpet.testkit.agents;

/** What a {@link FakeModelServer} answers one request with. */
public sealed interface ModelReply {
    /** Plain assistant text; the turn ends. */
    record Text(String text) implements ModelReply {}

    /** A call of the agent's shell tool with {@code command}: an agent that asks before running commands asks for approval. */
    record Shell(String command) implements ModelReply {}
}
