import { useCallback, useMemo } from 'react';
import { gpuPlaceLabel, type GpuMemorySample } from '../../../../shared/study/gpu-memory';
import { formattingLocale, t } from '../../i18n';
import type { OpenStudy } from '../../store';
import { EChart, type ChartTheme } from '../../components/EChart';
import { gpuChartsOf, gpuMemoryOption, type GpuChartTexts, type GpuHostChart } from './gpu-chart';
import { formatClock } from './study-format';

const NO_SAMPLES: GpuMemorySample[] = [];

function HostChart({ chart, title, samples }: { chart: GpuHostChart; title: string; samples: GpuMemorySample[] }) {
  const texts = useMemo<GpuChartTexts>(() => {
    const numbers = new Intl.NumberFormat(formattingLocale(), { maximumFractionDigits: 0 });
    return {
      title,
      xName: t('studies.gpu.time'),
      yName: t('studies.gpu.used'),
      total: t('studies.gpu.total'),
      gpu: (index) => t('studies.gpu.gpu', { index }),
      time: (ms) => formatClock(new Date(ms).toISOString()),
      mib: (value) => t('studies.gpu.mib', { value: numbers.format(value) }),
    };
  }, [title]);
  const option = useCallback((theme: ChartTheme) => gpuMemoryOption(theme, texts, samples, chart.gpus), [texts, samples, chart.gpus]);
  return <EChart title={title} option={option} height={240} />;
}

/** GPU memory over time, one chart per host the study used (MiB used per GPU, the total dashed). */
export function GpuMemoryCharts({ study, hostLabel }: { study: OpenStudy; hostLabel: (hostId: string) => string }) {
  const charts = useMemo(() => gpuChartsOf(study.project.state, study.gpuSamples), [study.project.state, study.gpuSamples]);
  const shown = charts.filter((chart) => (study.gpuSamples[chart.hostId]?.length ?? 0) > 0);
  return (
    <section className="study-section">
      <h3 className="section-title">{t('studies.gpu.title')}</h3>
      {shown.length === 0 ? (
        <p className="empty-line">{t('studies.gpu.empty')}</p>
      ) : (
        <div className="study-gpu-charts">
          {shown.map((chart) => (
            <HostChart
              key={chart.key}
              chart={chart}
              title={t('studies.gpu.chartTitle', { gpus: t('studies.timeline.gpus', { host: gpuPlaceLabel(chart.hostId, hostLabel), gpus: chart.gpus.join(', ') }) })}
              samples={study.gpuSamples[chart.hostId] ?? NO_SAMPLES}
            />
          ))}
        </div>
      )}
    </section>
  );
}
