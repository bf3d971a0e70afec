// <rl-checkpoint-probe> 的中文文本。
import { formatFixed, formatTrimmed } from '../../../web/components/shared/format.js';
import { QWEN_SEED } from '../../measurements.js';

// 各归一化按权重槽位（web/lib/checkpoint/claims.js 的 NORM_INPUTS，以及最终归一化）的读者名称：
// 实验“eps 与均方相比”的结论和表格都用它
const normNames = {
  attnNormBefore: '注意力的输入归一化',
  attnNormAfter: '注意力输出上的归一化',
  mlpNormBefore: 'MLP 的输入归一化',
  mlpNormAfter: 'MLP 输出上的归一化',
  qNorm: 'QK-Norm（q）',
  kNorm: 'QK-Norm（k）',
  finalNorm: '最终归一化',
};

export default {
  title: '训练过的模型内部：逐层看残差流',
  hint: '这里看的是真正学过东西的模型，而不是为画图编出来的数字：默认打开本项目自己训练的玩具解码器（在项目的小型英文语料上训练，存成 Hugging Face 检查点），也可以换成你手头任意检查点的文件（文件只在你的电脑上读取）。计算在后台 worker 里进行；图中是某个位置上残差流在每层之后的长度、每个子层往里加了多少、各归一化层的权重，以及每层的残差流此刻会预测什么（logit lens）。',
  sectionLink: '阅读本节',
  toy: '训练好的玩具模型',
  // the select's short names; toyNames, the full ones, say what is showing
  toyLabels: {
    'toy-llama': '玩具 Llama（Pre-Norm）',
    'toy-olmo2': '玩具 OLMo 2（子层输出归一化）',
  },
  toyNames: {
    'toy-llama': '玩具 Llama（Pre-Norm，4 层，约 20 万参数）',
    'toy-olmo2': '玩具 OLMo 2（归一化放在子层输出上，带 q/k 归一化，4 层）',
  },
  files: '或者用你自己的检查点文件',
  filesHint:
    '同时选中 config.json、model.safetensors（分片的话选索引文件和全部分片）以及 tokenizer.json。请选文件，不要选文件夹：Hugging Face 缓存里存的是符号链接，按文件夹上传时会被丢掉。',
  dropHere: '也可以把文件拖到这里',
  fetchTitle: '或者从 Hugging Face Hub 下载模型',
  fetchHint:
    '把模型的 config.json、tokenizer.json 和权重下载到这个浏览器的存储里，逐个核对 SHA-256，然后在这里打开。点击之前什么都不会下载；页面只下载，不上传。下载被取消或中断后，再次下载会从断点继续。',
  fetchHost: '来源',
  fetchCustomHost: '其他地址…',
  fetchEndpointLabel: '主机地址（Hugging Face 镜像）',
  fetchChapter: (repo, gb) => `下载本章用的模型 ${repo}（${gb} GB）`,
  fetchRepoLabel: '或者输入模型 id（组织/名称）',
  fetchGgufLabel: '如果是 GGUF 仓库，再填要下载的 .gguf 文件名（可选）',
  fetchRepo: '下载',
  fetchProgressLabel: '下载进度',
  fetchAsking: (repo, host) => `正在向 ${host} 查询 ${repo}…`,
  fetchProgress: (done, total, rate, seconds) =>
    `已下载 ${done} / ${total} MB${rate ? `，${rate} MB/s，约剩 ${seconds} 秒` : ''}。`,
  fetchDone: (repo, commit, mb, seconds) => `${repo}（commit ${commit}，${mb} MB）已下载并核对，用时 ${seconds} 秒。`,
  fetchStored: (repo, commit) => `${repo}（commit ${commit}）从本浏览器的存储中打开，没有重新下载。`,
  fetchFromFile:
    '下载模型需要通过网络访问本实验：从磁盘上的文件打开的页面没有存放模型的存储空间，也无法从 Hub 下载。请在上面打开你已下载的模型文件，或者先把本实验作为网页服务运行起来（在它的代码仓库里运行 npm start，或在装了它的包的地方运行 npx residual-lab），再来下载。',
  fetchToken: '访问令牌（仅受限模型需要）',
  fetchTokenHint:
    '像 Llama 这样的受限模型：先在它的 Hub 页面上同意使用条款，再从 huggingface.co/settings/tokens 复制一个只读令牌粘贴到这里。令牌只留在本页的内存里（不进地址栏，也不存储），只发给上面选定的地址，不会发给它重定向去的下载地址。',
  fetchErrors: {
    invalid_input: (e) =>
      ({
        not_repo_id: (r) => `“${r.value}”不是 Hugging Face 的模型 id，模型 id 形如 Qwen/Qwen2.5-0.5B-Instruct。`,
        not_revision: (r) => `“${r.value}”不是版本：请填分支、标签或 commit。`,
        not_host: (r) => `“${r.value}”不是主机地址，地址形如 https://huggingface.co。`,
      })[e.reason?.kind]?.(e.reason) ?? '无法使用：请检查模型 id 和来源。',
    not_found: () => '这个地址上没有这个模型（或模型里没有这个文件）。请检查 id 的拼写和来源。',
    gated: (e) =>
      e?.tokenSent
        ? 'Hub 拒绝了这个访问令牌：请用该账号在模型的 Hub 页面上同意使用条款，或换一个有读取权限的令牌。'
        : '这个模型需要 Hugging Face 访问令牌（受限或私有）：先在模型的 Hub 页面上同意使用条款，再把令牌填到上面的输入框；也可以自行下载它的文件，在上面打开。',
    rate_limited: () => '这个地址暂时拒绝请求（请求过多，HTTP 429）。稍后再次下载，会从断点继续。',
    blocked: (e) =>
      `${
        {
          csp: (r) => `本页的内容安全策略（Content-Security-Policy）不允许连接 ${r.value}。`,
          csp_redirect: (r) => `下载被转到了 ${r.value}，而本页的内容安全策略（Content-Security-Policy）不允许连接它。`,
          download_refused: (r) =>
            `${r.value} 有回应，但它转去的下载地址被浏览器拒绝了（CORS 或内容安全策略，控制台里写着是哪个地址），也可能是防火墙拦下的。`,
        }[e.reason?.kind]?.(e.reason) ?? '浏览器拦截了下载。'
      }嵌入本实验的页面必须允许这些地址，见 docs/checkpoints.md。`,
    storage_full: (e) =>
      e.reason?.kind === 'quota'
        ? `存储空间不足：模型需要 ${(e.reason.value / 1e6).toFixed(1)} MB，这个浏览器只允许本页再存 ${(e.reason.limit / 1e6).toFixed(1)} MB。请删掉已存的模型，或者自行下载文件后在上面打开。`
        : '这个浏览器在这里没有可以存放模型的空间：请自行下载文件，再在上面打开。',
    bad_response: () => '对方的回应不像 Hugging Face 主机：地址填对了吗？',
    http_error: () => '对方返回了错误。请稍后再试，或换一个来源。',
    offline: () => '连不上这个地址：这台电脑是否离线？稍后再次下载，会从断点继续。',
    hash_mismatch: () => '有一个文件的内容与 Hub 上记录的 SHA-256 不符，已删除。请重新下载。',
    cancelled: () => '已取消。再次下载会从断点继续。',
    other: (message) => `下载失败（${message}）。`,
  },
  storedTitle: '本浏览器中存储的模型',
  storedNone: '还没有。',
  storedModel: (repo, revision, commit, mb, date) => `${repo}（${revision}，commit ${commit}），${mb} MB，${date}`,
  storedOpen: '打开',
  storedDelete: '删除',
  sourceToy: (name) => `当前显示：${name}。`,
  sourceFiles: (names) => `当前显示你的文件：${names}。`,
  chartsStillShow: (name) => `下面变暗的图表仍是上一个成功运行的模型：${name}。`,
  prompt: '输入文本',
  promptHint: '由模型自己的分词器切分。没有 tokenizer.json 时，请直接输入词元 id，例如 3, 17, 5。',
  // 正文的示例输入（#residual-stream），打开读者自己带 tokenizer.json 的模型时默认用它
  chapterPrompt: '年假怎么申请？',
  seedPromptNote: (model, prompt) =>
    `这些文件的形状和 ${model} 一致，正文就是用“${prompt}”测的这个模型：所以这里默认用这句输入，下面的对照读的是同一段文字。想看别的，换成你自己的输入即可。`,
  toyPromptNote: (chapterPrompt) =>
    `这个玩具模型一个字符一个词元，只认识训练时见过的那几个字符：项目英文语料里的小写字母、数字、空格和少量标点，所以读不了正文的“${chapterPrompt}”，默认读的是测它时用的那段文字的开头。想看正文那句话，请在上面打开你自己的模型文件（例如 Qwen2.5-0.5B-Instruct）。`,
  vocabularyPromptNote: (chapterPrompt, count, toyText) =>
    `这个分词器只认识 ${count} 个字符，每个字符一个词元，读不了正文的“${chapterPrompt}”，所以默认读的是${toyText ? '实验室玩具模型测试时用的那段文字的开头，它正好只用这些字符写成' : '它自己的字符，按词表顺序排列'}。想读别的，只要输入由这些字符组成的文字即可。`,
  idsNote: (ids) =>
    `这些文件里没有 tokenizer.json，所以输入的是词元 id，默认是词表最前面的几个 id：${ids}，它们并不组成什么有意义的文字。你可以输入自己那段文字的 id，或者把 tokenizer.json 一起选上，就能直接输入文字。`,
  beyondContext: (tokens, context) =>
    `这段输入有 ${tokens} 个词元，超过了模型设计的 ${context} 个位置（max_position_embeddings）：从位置 ${context} 起，它读到的是训练中从没见过的位置。`,
  unknownCharacters: (characters) =>
    `这个模型的词表里没有这些字符：${characters.map((ch) => `“${ch}”`).join('、')}，分词器会把它们悄悄丢掉。请删掉它们，或者换一个认识它们的模型。屏幕上保留上一次的结果。`,
  emptyPrompt:
    '输入是空的：请输入要让模型读的文字（没有 tokenizer.json 时输入词元 id，例如 3, 17, 5）。屏幕上保留上一次的结果。',
  longPrompt: (tokens, limit) =>
    `这段输入有 ${tokens} 个词元，实验室最多运行 ${limit} 个。请缩短它。屏幕上保留上一次的结果。`,
  position: '位置',
  positionHint: '从 0 开始的词元位置；留空表示最后一个。',
  positionBeyond: (position, tokens) =>
    `这段输入有 ${tokens} 个词元，位置是 0 到 ${tokens - 1}，没有位置 ${position}。请填一个更小的位置，或者留空表示最后一个。`,
  reading: '正在读取文件',
  readProgress: (done, total) =>
    total
      ? `正在读取文件：${(done / 1e6).toFixed(1)} / ${(total / 1e6).toFixed(1)} MB…`
      : `正在读取文件：${(done / 1e6).toFixed(1)} MB…`,
  opening: '正在后台 worker 中打开检查点…',
  running: '正在后台 worker 中运行模型…',
  // model, read: sizes as text (0.4 MB, 0.99 GB)
  runCost: ({ model, read, flops, estimatedSeconds }, workers) =>
    `${workers > 1 ? `分给 ${workers} 个线程并行计算。` : ''}权重在磁盘上占 ${model}；这次运行要读其中的 ${read}，计算 ${formatFixed(flops / 1e9, 1)} GFLOP，估计需要 ${estimatedSeconds < 1 ? '1 秒' : `${Math.ceil(estimatedSeconds)} 秒`}。`,
  // what a run has done (runLayer, or runHead after the last layer), and the bytes read of those it reads
  runLayer: (layer, layers) => `已完成第 ${layer} / ${layers} 层`,
  runHead: '已完成输出层',
  runProgressInMemory: (step) => `${step}：权重都在内存里，不用再读文件。`,
  // read, total: sizes as text
  runProgress: (step, read, total) => `${step}：已读 ${read} / ${total}。`,
  // kept, budget: sizes as text (0.8 MB, 1.07 GB)
  residency: ({ mode, kept, budget }) =>
    mode === 'resident'
      ? `权重没有超出 ${budget} 的常驻预算，留在内存里（现占 ${kept}）：下次运行不再读权重。`
      : `权重超出了 ${budget} 的常驻预算：每次运行都要从文件重新读一遍。`,
  cancel: '取消',
  cancelled: '已取消：屏幕上保留上一次完成的结果。',
  took: (ms, workers = 1) =>
    `用时 ${ms < 1000 ? `${Math.round(ms)} 毫秒` : `${(ms / 1000).toFixed(1)} 秒`}${workers > 1 ? `，分给 ${workers} 个线程并行计算` : ''}。`,
  openFailed: (message) => `这些文件无法打开（${message}）。屏幕上保留上一次的结果。`,
  runFailed: (message) => `模型无法在这段输入上运行（${message}）。屏幕上保留上一次的结果。`,
  streamTitle: '所选位置上残差流的长度 |h|（0 为嵌入，i 为第 i − 1 层之后）',
  streamLabel: '折线图：所选位置上残差流的长度，从嵌入一直到最后一层',
  streamAt: '|h|',
  stateAxis: '残差流状态',
  incrementTitle: '每个子层在这里加进去的量 |Δ|：',
  incrementLabel: '柱状图：每一层的注意力子层和 MLP 子层在所选位置上加到残差流里的向量长度',
  attention: '注意力',
  mlp: 'MLP',
  zeroTitle: '位置 0 单独画出',
  zeroWhy:
    '第一个位置只能关注它自己。在训练过的大模型里，它的残差流常常比其他位置长得多（注意力汇聚点、超大激活），放在同一根坐标轴上会把其他曲线压成平线，所以单独画一张图。',
  // said only while a toy is drawn
  zeroToys:
    '玩具模型太小，看不到这一点：它们在位置 0 的最终长度和最后一个位置相差不到五分之一，仿 Llama 的短一些，仿 OLMo 2 的长一些（下面的读数给出了两者）。',
  zeroLabel: '折线图：位置 0 上残差流的长度，从嵌入一直到最后一层',
  streamZero: '位置 0 的 |h|',
  positionIs: (p, n, token) => `位置 ${p}（范围 0 .. ${n - 1}），词元“${token}”。`,
  streamFromTo: (bottom, top) => `残差流的长度从嵌入处的 ${bottom} 增长到最后一层之后的 ${top}。`,
  finalNorm: (before, after) =>
    `最终归一化把这个 ${before} 变成 ${after}：输出头读取的是归一化后的方向，再乘上最终归一化的权重。`,
  zeroVersus: (zero, here) => `在位置 0，最后一层之后的残差流长度是 ${zero}，而这里是 ${here}。`,
  weightsTitle: '各归一化层的权重',
  tensor: '张量',
  mean: '均值',
  std: '标准差',
  min: '最小值',
  max: '最大值',
  onePlus: (name) => `${name}（实际乘上的是 1 + w）`,
  storedOnePlus: (name) => `${name}（GGUF 文件里存的就是 1 + w，这里即实际乘数）`,
  lensTitle: '所选位置上的 logit lens',
  lensHint:
    '把每个残差流状态当作模型就此停下：先用它自己的均方根做最终归一化，再送进输出头，列出概率最高的几个词元。最后一行就是模型本身的预测。',
  state: '状态',
  rank: (r) => `第 ${r} 名`,
  embedding: '嵌入',
  afterLayer: (l) => `第 ${l} 层之后`,
  seed: {
    title: (model) => `正文的实测和你的结果并排：${model}`,
    recognised: (model) =>
      `这些文件的形状和 ${model} 一致（config.json 中的模型族、宽度、层数、头数和词表都相同），正文测的正是这个模型，所以把正文的数字放在你的结果旁边。同样形状的其他权重（基座模型、Qwen2-0.5B、微调版本）会给出不同的数字。`,
    conditions: (prompt, last, precision) =>
      `正文的实测来自课程本身（本项目不重新测量，你的文件可以）：输入“${prompt}”，看最后一个位置（“${last}”），本机 CPU 上用 ${precision} 运行。没有套对话模板，这是我们从最后一个位置推断的。`,
    yoursAre: (prompt, position, token, dtypes) =>
      `你的：输入“${prompt}”，位置 ${position}（“${token}”），权重以 ${dtypes} 存储，由本实验室的内核用 FP32 计算（WebAssembly）。`,
    notComparable: (prompt, position) =>
      `无法对照：${[prompt && '你的输入不是实测用的那句', position && '你选的不是最后一个位置'].filter(Boolean).join('，')}，两列量的不是同一样东西。`,
    needsTokenizer:
      '实测用的输入是文字，而这些文件里没有 tokenizer.json，无法把它切成词元：把模型的 tokenizer.json 一起选上，就能用它运行。',
    useSeed: '改用实测的输入和最后一个位置',
    point: '残差流长度 |h| 或增量 |Δ|',
    chapter: '正文',
    yours: '你的',
    most: (range) => `多数在 ${range}`,
    within: (k, n, range) => `${n} 个中有 ${k} 个在 ${range}`,
    points: {
      embedding: () => '|h|，词嵌入',
      afterLayer0: () => '第 0 层之后的 |h|',
      middle: ([a, b]) => `中间各层缓慢增长所到的 |h|（第 ${a}–${b} 层之后的最大值）`,
      peak: (l) => `第 ${l} 层之后的 |h|`,
      last: (l) => `最后一层（第 ${l} 层）之后的 |h|`,
      lastFfn: (l) => `第 ${l} 层（最后一层）FFN 的 |Δ|`,
      increments: () => '其余各子层的 |Δ|',
    },
  },
  // 实验（checkpoint-probe/experiments-view.js）：每个实验的名字、它检验的本章论断、一句话的测量结果
  experimentTitle: '本章的论断，在这个模型上测一测',
  experiment: '实验',
  experimentChart: '所选实验在当前模型上的测量结果',
  experimentRunning: '正在后台 worker 中运行实验……',
  experimentRan: (model, time) => `已在${model}上运行，${time} 完成：上面的结果就是这一次运行的。`,
  experimentProgress: (percent) => `实验：已完成 ${percent}%。`,
  cannotRun: (why) => `当前打开的模型做不了这个实验：${why}。`,
  experiments: {
    none: { name: '无（只看上面的图）', claim: '', answer: () => '' },
    noFinalNorm: {
      name: '去掉最终归一化',
      claim:
        '最后那个 Norm 省不得：主干一路只做加法，到最后一层已经可能很长，输出层读它之前，得先把长度收回到固定的尺度。',
      answer: (r, t) =>
        `在位置 ${r.position}，最终归一化把残差流（长度 ${formatFixed(r.streamNorm, 2)}）除以 ${formatFixed(r.scale, 3)}。只去掉这次除法、保留增益，每个 logit 在软上限之前都放大 ${formatFixed(r.scale, 3)} 倍，次序不变（第一仍是 ${t(r.real.ids[0])}）；熵变为 ${formatFixed(r.raw.entropy, 3)} nats（原来 ${formatFixed(r.real.entropy, 3)}），KL 为 ${formatFixed(r.kl, 3)} nats。连增益也去掉（整个归一化都不要），排第一的 token ${r.noGain.ids[0] === r.real.ids[0] ? `仍是 ${t(r.real.ids[0])}` : `是 ${t(r.noGain.ids[0])}`}，KL 为 ${formatFixed(r.noGain.kl, 3)} nats：这是增益带来的变化，不是尺度。`,
    },
    dropLayers: {
      name: '去掉一层',
      claim:
        'Sun 等人（2025）报告：在大型 Pre-Norm 模型中，不少靠后的层几乎只是把输入原样传下去，拿掉它们，模型的输出变化很小。',
      answer: (r) => {
        const kept = r.layers.filter((l) => l.topSurvives).length;
        const least = r.layers.reduce((a, b) => (b.kl < a.kl ? b : a));
        return `在位置 ${r.position}，逐层去掉 ${r.layers.length} 层中的一层，有 ${kept} 次排第一的 token 不变；去掉第 ${least.layer} 层代价最小（KL ${formatFixed(least.kl, 4)} nats）。`;
      },
    },
    wrongConvention: {
      name: '用错权重约定',
      claim: '把 Gemma 的归一化权重按 w 而不是 1 + w 读（或反过来），模型就会输出乱码。',
      answer: (r, t) =>
        `在位置 ${r.position}，按 ${r.wrong.normOffset ? '1 + w' : 'w'} 而不是 ${r.right.normOffset ? '1 + w' : 'w'} 读，排第一的 token ${r.wrong.ids[0] === r.right.ids[0] ? `仍是 ${t(r.right.ids[0])}` : `是 ${t(r.wrong.ids[0])}（正确：${t(r.right.ids[0])}）`}，熵 ${formatFixed(r.wrong.entropy, 3)} nats（正确：${formatFixed(r.right.entropy, 3)}）。`,
    },
    increments: {
      name: '增量与残差流之比',
      claim: 'Pre-Norm 的主干越来越长，每个子层写入的量却大致不变：越深，单个增量相对残差流越小。',
      answer: (r) => {
        const first = r.layers[0],
          last = r.layers.at(-1);
        return `在位置 ${r.position}：|Δ| / |h| 在第 0 层是 ${formatFixed(first.attn, 3)}（注意力）和 ${formatFixed(first.mlp, 3)}（MLP），在第 ${last.layer} 层是 ${formatFixed(last.attn, 3)} 和 ${formatFixed(last.mlp, 3)}。`;
      },
    },
    epsMargin: {
      name: 'eps 与均方相比',
      claim: 'ε 只用来防止除以零：即使是很短的嵌入，其均方也远大于它。',
      answer: (r) =>
        `各归一化输入处最小的均方是 ${formatTrimmed(r.smallest.minMeanSquare, 3)}（${normNames[r.smallest.slot]}${r.smallest.layer == null ? '' : `，第 ${r.smallest.layer} 层`}），是 ε = ${formatTrimmed(r.eps)} 的 ${formatTrimmed(r.smallest.ratio, 3)} 倍。`,
    },
    attentionScores: {
      name: '注意力分数与其上界',
      claim: '有了 QK-Norm，每个分数都不超过两个归一化增益之积乘以 √head_dim（128 维的头、g = 1 时为 11.3）。',
      answer: (r) => {
        const max = Math.max(...r.layers.flatMap((l) => l.maxPerHead));
        return r.layers[0]?.bound == null
          ? `这个模型没有 q/k 归一化，分数没有上界：最大的 |分数| 是 ${formatFixed(max, 2)}。`
          : `最大的 |分数| 是 ${formatFixed(max, 2)}；q/k 归一化的增益给第 0 层的上界是 ${formatFixed(r.layers[0].bound, 2)}，没有分数超过所在层的上界。`;
      },
    },
    softcaps: {
      name: '软上限的作用',
      claim: 'Gemma 2 的软上限把注意力分数压在 50 以下，把最终 logits 压在 30 以下。',
      unsupported:
        '当前打开的模型做不了这个实验：它没有设置软上限（attn_logit_softcapping、final_logit_softcapping）。Gemma 2 有。',
      answer: (r) => {
        const bent = (r.attention ?? []).reduce((n, l) => n + l.bent, 0);
        return `有 ${bent} 个注意力分数和 ${r.final?.bent ?? 0} 个最终 logit 落在上限使其弯曲的区间（|x| > 上限 / 2）。`;
      },
    },
    streamTop: {
      name: '长度落在哪些维度',
      claim: `在 ${QWEN_SEED.model} 里，残差流从嵌入处的 ${QWEN_SEED.embedding} 开始增长（正文的测量）：这样的增长是否集中在少数几个维度，看它最大的几个坐标就知道。`,
      answer: (r) => {
        const last = r.states.at(-1);
        return `在位置 ${r.position}，最后一层之后，最大的 ${r.k} 个坐标占了长度平方 ${formatFixed(last.norm, 2)}² 的 ${formatFixed(100 * last.share, 1)}%；随机方向最大的 ${r.k} 个平均占 ${formatFixed(100 * r.random.share, 1)}%。`;
      },
    },
    bf16Norm: {
      name: '归一化里的 BF16 运算',
      claim: '归一化在 FP32 里计算，因为用 BF16 累加平方会丢精度。',
      answer: (r) => {
        const worst = r.positions.reduce((a, b) => (Math.abs(b.meanSquareError) > Math.abs(a.meanSquareError) ? b : a));
        return `用 BF16 累加时，最终归一化的均方最多偏差 ${formatFixed(100 * Math.abs(worst.meanSquareError), 2)}%（位置 ${worst.position}）；输出的误差最多是其最大值的 ${formatFixed(100 * Math.max(...r.positions.map((p) => p.outputError)), 2)}%。`;
      },
    },
  },
  // 各实验图表的坐标轴说明（bar-chart.js 的 axes）：x 是各组柱子，y 是柱子量的是什么
  axes: {
    noFinalNorm: { x: '最后的残差流怎样读出', y: '下一个 token 分布的熵（nats）' },
    dropLayers: { x: '去掉的层', y: '与完整模型下一个 token 分布的 KL 散度（nats）' },
    wrongConvention: { x: '按哪种约定读归一化权重', y: '下一个 token 分布的熵（nats）' },
    increments: { x: '层', y: '|Δ| / |h|：子层加上的量与它所加到的残差流长度之比' },
    epsMargin: {
      x: '归一化，顺序同表格（L0 注意力前：第 0 层注意力的输入归一化；MLP 后：MLP 输出上的归一化；q、k：QK-Norm）',
      y: '表格中“与 ε 之比”的 log₁₀（3 表示均方是 ε 的 1000 倍）',
    },
    attentionScores: { x: '层', y: '最大 |分数|：q·k 乘以模型的缩放系数，封顶之前' },
    softcaps: { x: '层（最终：输出 logits）', y: '软上限前后的最大 |值|' },
    streamTop: { x: '残差流状态（0：词嵌入，i：第 i − 1 层之后）', y: '占 |h|² 的比例（1 即全部）' },
    bf16Norm: { x: 'token 位置', y: 'BF16 计算相对 FP32 的误差（0.01 即 1%）' },
  },
  withNorm: '有最终归一化',
  withoutNorm: '去掉除法（保留增益）',
  withoutGain: '去掉整个归一化',
  rightReading: '模型自己的约定',
  wrongReading: '另一种',
  readingColumn: '读法',
  entropy: '熵（nats）',
  topTokens: '前几位 token（概率）',
  layer: '层',
  kl: 'KL(完整 ‖ 去掉一层)，nats',
  topStays: '第一名不变',
  cosine: 'cos(输入, 输出)',
  yes: '是',
  no: '否',
  streamLength: '|h|',
  outputGains: '输出归一化的平均增益',
  finalShort: '最终',
  log10Ratio: 'log₁₀(均方 / ε)',
  norm: '归一化',
  normNames,
  // eps 实验的一根柱子：归一化所在的层和它的简称（normShort），最终归一化用 finalShort
  normBar: (layer, short) => `L${layer} ${short}`,
  normShort: {
    attnNormBefore: '注意力前',
    attnNormAfter: '注意力后',
    mlpNormBefore: 'MLP 前',
    mlpNormAfter: 'MLP 后',
    qNorm: 'q',
    kNorm: 'k',
  },
  minMeanSquare: '最小均方',
  ratioToEps: '与 ε 之比',
  maxScore: '最大 |分数|',
  bound: '上界',
  maxPerHead: '每个头的最大 |分数|',
  maxBefore: '上限前的最大值',
  maxAfter: '上限后的最大值',
  bent: '被弯曲 / 全部',
  topShare: (k) => `最大 ${k} 个坐标占 |h|² 的比例`,
  coordinates: '坐标：值',
  positionShort: '位置',
  meanSquare: '均方（FP32）',
  meanSquareBf16: '均方（BF16）',
  meanSquareError: '均方的相对误差',
  outputError: '输出误差 / 最大输出',
  // the experiment list's link to the gradient section (experiments-view.js)
  gradientsElsewhere: '这些模型的梯度（带跳连与去掉跳连）在“为什么深层网络离不开残差”一节里测量。',
  gradientsLink: '去测一测',
};
