// Text of a decoder widget's run state (web/components/experiment-run/), in Chinese.
export default {
  running: '正在后台线程中计算……',
  steps: (done, total) => `训练第 ${done} / ${total} 步……`,
  left: (seconds) => `还剩约 ${seconds < 60 ? `${seconds} 秒` : `${Math.round(seconds / 60)} 分钟`}。`,
  fixInputs: '未运行：请先改正上面标出的输入。',
  cancel: '取消',
  retry: '重试',
  cancelled: '已取消：屏幕上保留上一次完成的结果。',
  cancelledPartial: (done, total) => `已在第 ${done} / ${total} 步取消：屏幕上保留到此为止的曲线。`,
  failed: (message) => `实验出错：${message}`,
  workerFailed: (detail) =>
    `实验出错：负责计算的后台线程没有算完就停止了（${detail || '脚本没有加载成功，或被浏览器终止，例如内存不足'}）。设置没有问题：请点“重试”。`,
  took: (ms) => `用时 ${ms < 1000 ? `${Math.round(ms)} 毫秒` : `${(ms / 1000).toFixed(1)} 秒`}。`,
  seed: '随机种子',
  anotherSeed: '换一个种子',
};
