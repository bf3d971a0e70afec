// Text of embed.html (web/embed.js), in Chinese.
export default {
  title: (name) => `Residual Lab：${name}`,
  unknown: (name) =>
    name ? `没有名为“${name.slice(0, 40)}”的组件。` : '这个页面显示一个组件：请用 ?widget=名称 指定。',
  choose: '可用的组件：',
};
