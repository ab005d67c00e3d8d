import { plan } from '../../../lib/planner';
import { requireProfile } from '../../../lib/profiles';

/*
 * The Neuron Inf2 performance table (shared/seeds/001, Sept 2024) prices each row with the us-east-1 RI-effective
 * rate of inf2.xlarge ($0.328/h). Planning the row's own throughput on one inf2.xlarge with no headroom must give
 * the table's "cost per 1M inferences" to the cent-tenth it prints.
 */
describe('the planner reproduces the seed table cost per 1M inferences', () => {
  const rows: [model: string, throughput: number, p99Ms: number, batch: number, tableCost: number][] = [
    ['bert-base-cased', 2697.72, 3.11, 4, 0.034],
    ['roberta-large', 969.49, 8.68, 4, 0.094],
    ['albert-base-v2', 2999.88, 5.49, 8, 0.03],
  ];

  test.each(rows)('%s batch row: %d/s at $0.328/h', (model, throughput, p99Ms, batch, tableCost) => {
    const chosen = plan(
      requireProfile(model),
      { throughputRps: throughput, p99Ms },
      { region: 'us-east-1', hosting: 'ec2', pricing: 'ri-effective', headroom: 0, instanceTypes: ['inf2.xlarge'] },
    );
    expect(chosen.price.usdPerHour).toBe(0.328);
    expect(chosen.batchSize).toBe(batch);
    expect(chosen.instanceCount).toBe(1);
    expect(chosen.processesPerInstance).toBe(2);
    expect(Math.round(chosen.costPer1MInferencesUsd * 1000) / 1000).toBe(tableCost);
  });
});
