// The getting-started guide on the Hosts page.
const welcome = {
  'guide.title': 'Getting started',
  'guide.intro': 'No GPU needed to try Servelab: the demo lab below is a simulated H100 box on this machine. Four steps take you from it to a tuned launch command and a report.',
  'guide.introNoDemo': 'Four steps take you from a GPU box to a tuned launch command and a report. Restore the demo lab to try them on a simulated H100 box first.',
  'guide.step.lab.title': 'Look at the demo lab',
  'guide.step.lab.body': 'Read it below to see its GPU, driver and tools, as Servelab reads a real box over SSH. Its numbers are simulated and labelled so.',
  'guide.step.study.title': 'Run the example latency study',
  'guide.step.study.body': 'In Studies, choose New from example on “Qwen3-8B, lowest latency on one H100”, then Run. It installs the engines, tries each option and takes about two minutes.',
  'guide.step.decide.title': 'Read the recommendation and compare',
  'guide.step.decide.body': 'The Recommendation tab gives the exact launch command and why each option was kept or dropped. Compare the top two puts it beside the best other configuration, with every metric’s change.',
  'guide.step.share.title': 'Export the CSV and the report',
  'guide.step.share.body': 'The Report tab previews the report and exports it as Markdown or HTML, and every trial as CSV.',
  'guide.openStudies': 'Try the example study',
  'guide.hide': 'Hide the guide',
  'guide.show': 'Getting started',
} as const;

export default welcome;
