// A line chart of values per UTC day (uPlot, drawn on a canvas) with the same numbers as a
// table for screen readers and for the tests.
import { useEffect, useRef } from "preact/hooks";
import uPlot from "uplot";
import "uplot/dist/uPlot.min.css";

export interface DayPoint {
  day: string;
  value: number;
}

/** One point per UTC day from start to end inclusive; days without statistics are 0. */
export function everyDay(start: string, end: string, values: Map<string, number>): DayPoint[] {
  const points: DayPoint[] = [];
  for (
    let t = Date.parse(`${start}T00:00:00Z`);
    t <= Date.parse(`${end}T00:00:00Z`) && points.length < 400;
    t += 86_400_000
  ) {
    const day = new Date(t).toISOString().slice(0, 10);
    points.push({ day, value: values.get(day) ?? 0 });
  }
  return points;
}

/** A UTC day as the console writes dates (ISO 8601): 2026-11-24. */
const isoDay = (seconds: number) => new Date(seconds * 1000).toISOString().slice(0, 10);

/** Whole-number steps for the y axis (1, 2, 5, 10, 20, …): the charts count plays. */
const COUNT_STEPS = Array.from({ length: 15 }, (_, i) => [1, 2, 5].map((m) => m * 10 ** i)).flat();

export function DayChart({ points, label }: { points: DayPoint[]; label: string }) {
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const el = box.current;
    if (!el || points.length === 0) return;
    const xs = points.map((p) => Date.parse(`${p.day}T00:00:00Z`) / 1000);
    // The canvas has a fixed size: follow the box's width (a phone turned, a window resized, or a
    // layout that settles after the first draw), never wider than the box.
    const size = () => ({
      width: Math.max(200, Math.min(el.clientWidth || 640, 900)),
      height: 240,
    });
    const plot = new uPlot(
      {
        ...size(),
        tzDate: (ts) => uPlot.tzDate(new Date(ts * 1000), "Etc/UTC"),
        scales: { x: { time: true } },
        series: [
          // The legend's day, ISO like every date of the console (uPlot's default is 11/24/2026).
          { label: "UTC day", value: (_u, ts) => (ts == null ? "–" : isoDay(ts)) },
          { label, stroke: "#1d4ed8", width: 2, points: { show: true, size: 7 } },
        ],
        // The legend shows the day under the pointer and stays on it when the pointer leaves
        // (uPlot would go back to "--"); before any pointer, the last day's.
        cursor: { bind: { mouseleave: () => () => null } },
        // uPlot's own steps include halves (0.5, 1.5 for a day of 2 plays): counts have none.
        axes: [
          { space: 90, values: (_u, splits) => splits.map(isoDay) },
          { label, incrs: COUNT_STEPS },
        ],
      },
      [xs, points.map((p) => p.value)],
      el,
    );
    plot.setCursor({
      left: plot.valToPos(xs[xs.length - 1]!, "x"),
      top: plot.valToPos(points[points.length - 1]!.value, "y"),
    });
    const resized = new ResizeObserver(() => {
      const next = size();
      if (next.width !== plot.width) plot.setSize(next);
    });
    resized.observe(el);
    return () => {
      resized.disconnect();
      plot.destroy();
    };
  }, [points, label]);
  if (points.every((p) => p.value === 0)) return <p class="muted">No plays in this range yet.</p>;
  return (
    <figure class="chart">
      <div
        ref={box}
        role="img"
        aria-label={`${label} per UTC day, line chart`}
        data-points={points.length}
      />
      <figcaption>
        <details>
          <summary>{label} per day as a table (days with plays)</summary>
          <table>
            <thead>
              <tr>
                <th scope="col">UTC day</th>
                <th scope="col">{label}</th>
              </tr>
            </thead>
            <tbody>
              {points
                .filter((p) => p.value > 0)
                .map((p) => (
                  <tr key={p.day}>
                    <td>{p.day}</td>
                    <td>{p.value}</td>
                  </tr>
                ))}
            </tbody>
          </table>
        </details>
      </figcaption>
    </figure>
  );
}
