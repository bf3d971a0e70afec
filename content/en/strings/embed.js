// Text of embed.html (web/embed.js), in English.
export default {
  title: (name) => `Residual Lab: ${name}`,
  unknown: (name) =>
    name
      ? `There is no widget called "${name.slice(0, 40)}".`
      : 'This page shows one widget: say which with ?widget=NAME.',
  choose: 'The widgets:',
};
