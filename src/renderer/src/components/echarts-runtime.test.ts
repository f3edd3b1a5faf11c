// Every series type the chart builders emit is registered: echarts drops an unregistered series without a word.
import { describe, expect, it } from 'vitest';
import * as echarts from 'echarts/core';
import { SVGRenderer } from 'echarts/renderers';
import './echarts-runtime';
import { errorBarSeries } from '../features/compare/charts';

echarts.use([SVGRenderer]);

describe('echarts runtime', () => {
  it('draws the error bars (a custom series) beside line, scatter and bar series', () => {
    const chart = echarts.init(null, undefined, { renderer: 'svg', ssr: true, width: 400, height: 300 });
    chart.setOption({
      xAxis: { type: 'value' },
      yAxis: { type: 'value' },
      series: [
        { type: 'line', data: [[100, 10]] },
        { type: 'scatter', data: [[100, 10]] },
        { type: 'bar', data: [[100, 10]] },
        errorBarSeries('Configurations', [[100, 9, 11]], '#00f'),
      ],
    });
    const types = chart.getOption().series as { type: string }[];
    expect(types.map((s) => s.type)).toEqual(['line', 'scatter', 'bar', 'custom']);
    chart.dispose();
  });
});
