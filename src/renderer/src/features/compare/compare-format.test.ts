import { afterEach, describe, expect, it } from 'vitest';
import { setLocale } from '../../i18n';
import { metricInfo } from './compare-model';
import { metricTitle } from './compare-format';

afterEach(() => setLocale('en'));

describe('metricTitle', () => {
  it('names metrics in the UI language and keeps percentile names as they are', () => {
    const names = () => ['total_token_throughput', 'mean_latency_s', 'mean_ttft_ms', 'median_e2el_ms', 'p99_itl_ms', 'p99.9_itl_ms'].map((k) => metricTitle(metricInfo(k)!));
    expect(names()).toEqual(['Total token throughput', 'Mean latency', 'Mean TTFT', 'Median E2EL', 'P99 ITL', 'P99.9 ITL']);
    setLocale('tr');
    expect(names()).toEqual(['Toplam token verimi', 'Ortalama gecikme', 'Ortalama TTFT', 'Medyan E2EL', 'P99 ITL', 'P99.9 ITL']);
  });

  it("names the speculative-decoding metrics vLLM reports in the UI language", () => {
    const names = () => ['spec_decode_acceptance_rate', 'spec_decode_acceptance_length'].map((k) => metricTitle(metricInfo(k)!));
    expect(names()).toEqual(['Draft acceptance rate', 'Acceptance length']);
    setLocale('tr');
    expect(names()).toEqual(['Taslak kabul oranı', 'Kabul uzunluğu']);
  });
});
