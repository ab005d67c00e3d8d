import { RECORDED_COEFFICIENTS } from '../../../../lib/generative/model/coefficients';
import { fitRows } from '../../../../lib/generative/model/dataset';
import { RECORDED_ERROR_REPORT } from '../../../../lib/generative/model/error-report';
import { fitCoefficients, observations } from '../../../../lib/generative/model/fit';
import { leaveOneModelOutReport } from '../../../../lib/generative/model/report';
import { MEDIAN_TOLERANCE, medianRegressions } from '../../../../lib/generative/model/regression';

/*
 * The accuracy guard of issue 36: the model refitted to today's rows, held out a whole model at a time, may not be
 * worse than the recorded figures by more than 5 % of each median, and plans must load the coefficients of today's
 * rows. `npm run fit:llm-model` regenerates both records (and refuses a worse model without a reason).
 */
const obs = observations(fitRows());

describe('the recorded performance model', () => {
  test('GIVEN today\'s rows WHEN refitted THEN the recorded coefficients are the fit (regenerate with npm run fit:llm-model)', () => {
    const fitted = fitCoefficients(obs);
    const close = (a: readonly number[], b: readonly number[] | undefined) => {
      expect(b).toBeDefined();
      a.forEach((v, k) => expect(Math.abs(v - (b as number[])[k])).toBeLessThanOrEqual(1e-5 * Math.max(1e-9, Math.abs(v))));
    };
    close(fitted.shared, RECORDED_COEFFICIENTS.shared);
    expect(Object.keys(RECORDED_COEFFICIENTS.byGroup).sort()).toEqual(Object.keys(fitted.byGroup).sort());
    for (const [group, c] of Object.entries(fitted.byGroup)) {
      close(c, RECORDED_COEFFICIENTS.byGroup[group]);
    }
    expect(RECORDED_ERROR_REPORT.rows).toBe(new Set(obs.map((o) => o.row)).size);
  });

  test('GIVEN a whole model held out at a time WHEN its rows are predicted THEN neither median is worse than recorded by more than 5 % of it', () => {
    const now = leaveOneModelOutReport(obs);
    expect(medianRegressions(RECORDED_ERROR_REPORT, now)).toEqual([]);
    expect(now.tpot.count).toBe(RECORDED_ERROR_REPORT.leaveOneModelOut.tpot.count);
  });

  test('GIVEN a model worse than recorded WHEN checked THEN the guard names the median and refuses it', () => {
    const recorded = RECORDED_ERROR_REPORT.leaveOneModelOut;
    const worse = { ...recorded, ttft: { ...recorded.ttft, median: recorded.ttft.median * (1 + 2 * MEDIAN_TOLERANCE) } };
    expect(medianRegressions(RECORDED_ERROR_REPORT, worse)).toEqual([expect.stringMatching(/^TTFT leave-one-model-out median .* worse than the recorded/)]);
    expect(medianRegressions(RECORDED_ERROR_REPORT, { ...recorded, tpot: { ...recorded.tpot, median: recorded.tpot.median * (1 + MEDIAN_TOLERANCE / 2) } })).toEqual([]);
  });
});
