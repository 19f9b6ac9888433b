// Gauges made in one registry of slowdisk's own, never prom-client's global one (whose
// process_* metrics would clash with node_exporter's), one line a declaration.
import { Gauge, type Registry } from 'prom-client';

/** A maker of gauges registered in `registry` alone. */
export function gaugesIn(registry: Registry) {
  return <Label extends string = never>(name: string, help: string, labelNames: readonly Label[] = []): Gauge<Label> =>
    new Gauge<Label>({ name, help, labelNames, registers: [registry] });
}
