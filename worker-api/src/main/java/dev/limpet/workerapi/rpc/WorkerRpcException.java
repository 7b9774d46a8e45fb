package dev.limpet.workerapi.rpc;

/** A worker RPC failed with a canonical code, either answered by the peer or detected locally. */
public final class WorkerRpcException extends RuntimeException {
    private final WorkerErrorCode code;

    public WorkerRpcException(WorkerErrorCode code, String message) {
        super(message);
        this.code = code;
    }

    public WorkerRpcException(WorkerErrorCode code, String message, Throwable cause) {
        super(message, cause);
        this.code = code;
    }

    public WorkerErrorCode code() {
        return code;
    }
}
