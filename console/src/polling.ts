// A page's view of work the service does in the background (a rendition ladder, automatic
// captions): asked for now, and again every `ms` while it is under way, until the component goes
// or what it depends on changes.
import { useEffect } from "preact/hooks";

export function usePolled<T>(
  load: () => Promise<T>,
  then: (answer: T) => void,
  failed: (err: unknown) => void,
  underWay: (answer: T) => boolean,
  ms: number,
  deps: unknown[],
): void {
  useEffect(() => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    let stopped = false;
    const read = () =>
      load().then(
        (answer) => {
          if (stopped) return;
          then(answer);
          if (underWay(answer)) timer = setTimeout(read, ms);
        },
        (err: unknown) => {
          if (!stopped) failed(err);
        },
      );
    void read();
    return () => {
      stopped = true;
      clearTimeout(timer);
    };
  }, deps);
}
