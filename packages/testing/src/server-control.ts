/** Operations on a server process a test owns: stop it, start it again on the same port, or freeze it. */
export interface ServerControl {
  /** Stops the server (the port stays reserved for `start`). */
  stop(): Promise<void>;
  /** Starts it again on the same port and data directory. */
  start(): Promise<void>;
  restart(): Promise<void>;
  /** SIGSTOP: the server keeps its sockets open and answers nothing. */
  pause(): void;
  /** SIGCONT after `pause`. */
  resume(): void;
}

/** The part of a started testcontainers container that {@link containerControl} uses. */
interface RestartableContainer {
  stop(options?: { remove?: boolean }): Promise<unknown>;
  restart(): Promise<unknown>;
}

/** Stop/start/restart of a container; a container cannot be paused with SIGSTOP from here. */
export function containerControl(container: RestartableContainer, what: string): ServerControl {
  return {
    stop: async () => {
      await container.stop({ remove: false });
    },
    start: async () => {
      await container.restart();
    },
    restart: async () => {
      await container.restart();
    },
    pause: () => {
      throw new Error(`pause is not supported for a container-backed ${what}`);
    },
    resume: () => {
      throw new Error(`resume is not supported for a container-backed ${what}`);
    },
  };
}
