// The part of echarts the app draws with, registered once. EChart loads this module on demand (a dynamic import), so
// echarts is a chunk of its own that a page without a chart never downloads.
import * as echarts from 'echarts/core';
import { BarChart, CustomChart, LineChart, ScatterChart } from 'echarts/charts';
import { GridComponent, LegendComponent, TitleComponent, TooltipComponent } from 'echarts/components';
import { CanvasRenderer } from 'echarts/renderers';

// Only what the comparison draws (custom: the error bars of charts.ts); the canvas renderer because getDataURL can only
// make a PNG from a canvas.
echarts.use([BarChart, CustomChart, LineChart, ScatterChart, GridComponent, LegendComponent, TitleComponent, TooltipComponent, CanvasRenderer]);

export const init = echarts.init;
