import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';

export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

export interface MetricFamily {
  name: string;
  type: string;
  samples: Sample[];
}

/** Debian's python3-prometheus-client lives beside the system interpreter, not a pyenv one. */
const PYTHON = existsSync('/usr/bin/python3') ? '/usr/bin/python3' : 'python3';

const PARSE = `
import json, math, sys
from prometheus_client.parser import text_string_to_metric_families
# JSON has no NaN or infinities: those travel as strings.
value = lambda v: v if math.isfinite(v) else str(v)
families = [{"name": f.name, "type": f.type, "samples": [{"name": s.name, "labels": s.labels, "value": value(s.value)} for s in f.samples]}
            for f in text_string_to_metric_families(sys.stdin.read())]
print(json.dumps(families))
`;

/**
 * Parses a Prometheus text exposition with the Prometheus project's own Python client (package
 * python3-prometheus-client on Debian), which rejects anything a Prometheus server would not read.
 */
export function parsePrometheus(text: string): MetricFamily[] {
  const families = JSON.parse(execFileSync(PYTHON, ['-c', PARSE], { input: text, encoding: 'utf8' })) as MetricFamily[];
  for (const family of families) for (const sample of family.samples) sample.value = Number(sample.value);
  return families;
}

/** The value of the sample `name` whose labels include `labels`; undefined when there is none. */
export function sampleValue(families: MetricFamily[], name: string, labels: Record<string, string> = {}): number | undefined {
  for (const family of families) {
    for (const sample of family.samples) {
      if (sample.name === name && Object.entries(labels).every(([key, value]) => sample.labels[key] === value)) return sample.value;
    }
  }
  return undefined;
}
