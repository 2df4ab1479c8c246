/**
 * `node --import tsx bench/classifier.ts`: the spam classifier (src/spam/classifier) on the
 * SpamAssassin corpus, trained on one half and tested on the other (bench/spam-corpus.ts): its
 * precision and recall at thresholds around the default (0.9), the CPU time to read and score one
 * text, and its state's size per site, in memory and in the database. No server: the model alone.
 */
import { featuresOf } from '../src/spam/classifier/features.ts';
import { Model } from '../src/spam/classifier/model.ts';
import { encodeFeatures } from '../src/spam/classifier/store.ts';
import { spamCorpus } from './spam-corpus.ts';

const { train, test } = spamCorpus();
const model = new Model();
let started = process.cpuUsage();
let exampleBytes = 0;
for (const mail of train) {
  const features = featuresOf(mail.text);
  model.learn(features, mail.spam ? 'spam' : 'ham');
  exampleBytes += encodeFeatures(features).length;
}
const trainUs = cpuUs(started) / train.length;

started = process.cpuUsage();
const scored = test.map((mail) => ({ spam: mail.spam, score: model.score(featuresOf(mail.text)) }));
const scoreUs = cpuUs(started) / test.length;
const comment = 'Great article, thanks! I tried the second recipe last night and it worked well.';
started = process.cpuUsage();
const ROUNDS = 20_000;
for (let i = 0; i < ROUNDS; i++) model.score(featuresOf(`${comment} ${i}`));
const commentUs = cpuUs(started) / ROUNDS;

function cpuUs(since: NodeJS.CpuUsage): number {
  const used = process.cpuUsage(since);
  return used.user + used.system;
}

const spamTotal = test.filter((mail) => mail.spam).length;
const lines = [
  `corpus: ${train.length} mails to train (${train.filter((m) => m.spam).length} spam), ${test.length} to test (${spamTotal} spam)`,
  '| threshold | precision | recall | held ham | missed spam |',
  '|---|---|---|---|---|',
];
for (const threshold of [0.5, 0.8, 0.9, 0.95, 0.99]) {
  const held = scored.filter((s) => s.score >= threshold);
  const caught = held.filter((s) => s.spam).length;
  lines.push(`| ${threshold} | ${(caught / held.length).toFixed(4)} | ${(caught / spamTotal).toFixed(4)} | ${held.length - caught} | ${spamTotal - caught} |`);
}
let buckets = 0;
for (let bucket = 0; bucket < model.counts.length / 2; bucket++) if (model.counts[bucket * 2] + model.counts[bucket * 2 + 1] > 0) buckets++;
lines.push(
  `CPU per text: ${trainUs.toFixed(0)} µs to read and learn a mail, ${scoreUs.toFixed(0)} µs to read and score a mail, ${commentUs.toFixed(1)} µs to read and score an 80-character comment`,
  `state per site: ${model.counts.byteLength.toLocaleString('en')} bytes in memory (${(model.counts.length / 2).toLocaleString('en')} buckets × 2 counts × 4 bytes, whatever was learnt); ` +
    `in the database, ${buckets.toLocaleString('en')} count rows after ${train.length} mails (at most 131,072), and ${Math.round(exampleBytes / train.length).toLocaleString('en')} bytes of features per example`,
);
process.stdout.write(`${lines.join('\n')}\n`);
