<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="pt_BR" sourcelanguage="en">
<context>
    <name>CannedPicker</name>
    <message>
        <source>Canned replies</source>
        <translation>Respostas prontas</translation>
    </message>
</context>
<context>
    <name>CannedRepliesDialog</name>
    <message>
        <source>Only a supervisor can add, change or delete canned replies.</source>
        <translation>Só um supervisor pode adicionar, alterar ou excluir respostas prontas.</translation>
    </message>
    <message>
        <source>This canned reply no longer exists: someone deleted it meanwhile.</source>
        <translation>Esta resposta pronta não existe mais: alguém a excluiu nesse meio-tempo.</translation>
    </message>
    <message>
        <source>Another canned reply already uses /{shortcut}: choose another shortcut.</source>
        <translation>Outra resposta pronta já usa /{shortcut}: escolha outro atalho.</translation>
    </message>
    <message>
        <source>The shortcut is 1 to {count} letters, digits, _ or -.</source>
        <translation>O atalho tem de 1 a {count} letras, dígitos, _ ou -.</translation>
    </message>
    <message>
        <source>The title is 1 to {count} characters.</source>
        <translation>O título tem de 1 a {count} caracteres.</translation>
    </message>
    <message>
        <source>The text is 1 to {count} characters.</source>
        <translation>O texto tem de 1 a {count} caracteres.</translation>
    </message>
    <message>
        <source>Canned replies</source>
        <translation>Respostas prontas</translation>
    </message>
    <message>
        <source>Shortcut</source>
        <translation>Atalho</translation>
    </message>
    <message>
        <source>thanks</source>
        <translation>obrigado</translation>
    </message>
    <message>
        <source>Title</source>
        <translation>Título</translation>
    </message>
    <message>
        <source>Reply text</source>
        <translation>Texto da resposta</translation>
    </message>
    <message>
        <source>Hi {{name}}, thanks for writing to us!</source>
        <translation>Oi {{name}}, obrigado por falar com a gente!</translation>
    </message>
    <message>
        <source>{{name}} and {{number}} are filled in with the customer&apos;s name and number.</source>
        <translation>{{name}} e {{number}} são preenchidos com o nome e o número do cliente.</translation>
    </message>
    <message>
        <source>New</source>
        <translation>Nova</translation>
    </message>
    <message>
        <source>New canned reply</source>
        <translation>Nova resposta pronta</translation>
    </message>
    <message>
        <source>Save</source>
        <translation>Salvar</translation>
    </message>
    <message>
        <source>Save canned reply</source>
        <translation>Salvar resposta pronta</translation>
    </message>
    <message>
        <source>Delete</source>
        <translation>Excluir</translation>
    </message>
    <message>
        <source>Delete canned reply</source>
        <translation>Excluir resposta pronta</translation>
    </message>
    <message>
        <source>Close</source>
        <translation>Fechar</translation>
    </message>
    <message>
        <source>Shortcut  /</source>
        <translation>Atalho  /</translation>
    </message>
    <message>
        <source>Text</source>
        <translation>Texto</translation>
    </message>
    <message>
        <source>Saving /{shortcut}…</source>
        <translation>Salvando /{shortcut}…</translation>
    </message>
    <message>
        <source>Deleting /{shortcut}…</source>
        <translation>Excluindo /{shortcut}…</translation>
    </message>
    <message>
        <source>Delete /{shortcut} ({title}) for everyone?</source>
        <translation>Excluir /{shortcut} ({title}) para toda a equipe?</translation>
    </message>
    <message>
        <source>Saved /{shortcut}.</source>
        <translation>/{shortcut} salva.</translation>
    </message>
    <message>
        <source>Deleted.</source>
        <translation>Excluída.</translation>
    </message>
    <message>
        <source>No canned replies yet: write one and save it.</source>
        <translation>Ainda não há respostas prontas: escreva uma e salve.</translation>
    </message>
    <message>
        <source>Canned replies could not be loaded: {reason}</source>
        <translation>Não foi possível carregar as respostas prontas: {reason}</translation>
    </message>
</context>
<context>
    <name>Composer</name>
    <message>
        <source>The customer&apos;s 24-hour window is closed: free text cannot be sent. Pick a template below to reopen it.</source>
        <translation>A janela de 24 horas do cliente está fechada: não é possível enviar texto livre. Escolha um modelo abaixo para reabri-la.</translation>
    </message>
    <message>
        <source>Write a reply…  (Ctrl+Enter sends)</source>
        <translation>Escreva uma resposta…  (Ctrl+Enter envia)</translation>
    </message>
    <message>
        <source>Write an internal note for the team; the customer never sees it…  (Ctrl+Enter adds it)</source>
        <translation>Escreva uma nota interna para a equipe; o cliente nunca a vê…  (Ctrl+Enter adiciona)</translation>
    </message>
    <message>
        <source>Send anyway</source>
        <translation>Enviar mesmo assim</translation>
    </message>
    <message>
        <source>Another system</source>
        <translation>Outro sistema</translation>
    </message>
    <message>
        <source>Attached: {name}  ·  {size}</source>
        <translation>Anexo: {name}  ·  {size}</translation>
    </message>
    <message>
        <source>Attach a file</source>
        <translation>Anexar um arquivo</translation>
    </message>
    <message>
        <source>Reply</source>
        <translation>Responder</translation>
    </message>
    <message>
        <source>Note</source>
        <translation>Nota</translation>
    </message>
    <message>
        <source>Write a reply</source>
        <translation>Escrever uma resposta</translation>
    </message>
    <message>
        <source>Write an internal note</source>
        <translation>Escrever uma nota interna</translation>
    </message>
    <message>
        <source>An internal note for the team  ({shortcut})</source>
        <translation>Uma nota interna para a equipe  ({shortcut})</translation>
    </message>
    <message>
        <source>Time left in the customer&apos;s window</source>
        <translation>Tempo restante na janela do cliente</translation>
    </message>
    <message>
        <source>Reply text</source>
        <translation>Texto da resposta</translation>
    </message>
    <message>
        <source>Send</source>
        <translation>Enviar</translation>
    </message>
    <message>
        <source>Send reply</source>
        <translation>Enviar resposta</translation>
    </message>
    <message>
        <source>Template</source>
        <translation>Modelo</translation>
    </message>
    <message>
        <source>Template preview</source>
        <translation>Prévia do modelo</translation>
    </message>
    <message>
        <source>Send template</source>
        <translation>Enviar modelo</translation>
    </message>
    <message>
        <source>Attach…</source>
        <translation>Anexar…</translation>
    </message>
    <message>
        <source>Attach a photo, voice note, video or document (or drop or paste one)</source>
        <translation>Anexe uma foto, mensagem de voz, vídeo ou documento (ou arraste ou cole aqui)</translation>
    </message>
    <message>
        <source>Attached file</source>
        <translation>Arquivo anexado</translation>
    </message>
    <message>
        <source>Remove</source>
        <translation>Remover</translation>
    </message>
    <message>
        <source>Remove the attached file</source>
        <translation>Remover o arquivo anexado</translation>
    </message>
    <message>
        <source>Upload progress</source>
        <translation>Progresso do envio</translation>
    </message>
    <message>
        <source>Note text</source>
        <translation>Texto da nota</translation>
    </message>
    <message>
        <source>Add note</source>
        <translation>Adicionar nota</translation>
    </message>
    <message>
        <source>Window: {countdown}</source>
        <translation>Janela: {countdown}</translation>
    </message>
    <message>
        <source>Window closed: templates only</source>
        <translation>Janela fechada: só modelos</translation>
    </message>
    <message>
        <source>Template value: {name}</source>
        <translation>Valor do modelo: {name}</translation>
    </message>
    <message>
        <source>Fill in every template value first.</source>
        <translation>Preencha primeiro todos os valores do modelo.</translation>
    </message>
    <message>
        <source>Sending…</source>
        <translation>Enviando…</translation>
    </message>
    <message>
        <source>Queued.</source>
        <translation>Na fila.</translation>
    </message>
    <message>
        <source>{state}.</source>
        <translation>{state}.</translation>
    </message>
    <message>
        <source>A colleague wrote in this conversation after you last looked.</source>
        <translation>Um colega escreveu nesta conversa depois da última vez que você olhou.</translation>
    </message>
    <message>
        <source>Add a caption…  (Ctrl+Enter sends)</source>
        <translation>Adicione uma legenda…  (Ctrl+Enter envia)</translation>
    </message>
    <message>
        <source>Could not attach the file: {reason}</source>
        <translation>Não foi possível anexar o arquivo: {reason}</translation>
    </message>
    <message>
        <source>A voice note or audio file takes no caption; send the words on their own.</source>
        <translation>Mensagem de voz ou áudio não leva legenda; envie o texto separado.</translation>
    </message>
    <message>
        <source>Uploading…</source>
        <translation>Enviando…</translation>
    </message>
    <message>
        <source>another system</source>
        <translation>outro sistema</translation>
    </message>
    <message>
        <source>someone else</source>
        <translation>outra pessoa</translation>
    </message>
    <message>
        <source>The conversation changed</source>
        <translation>A conversa mudou</translation>
    </message>
    <message>
        <source>{who} wrote to this customer after you last looked:

{messages}

Send your reply anyway?</source>
        <translation>{who} escreveu para este cliente depois da última vez que você olhou:

{messages}

Enviar sua resposta mesmo assim?</translation>
    </message>
    <message>
        <source>Not sent. Read what your colleague wrote; your draft is kept.</source>
        <translation>Não enviada. Leia o que seu colega escreveu; seu rascunho foi mantido.</translation>
    </message>
    <message>
        <source>Adding the note…</source>
        <translation>Adicionando a nota…</translation>
    </message>
    <message>
        <source>Note added.</source>
        <translation>Nota adicionada.</translation>
    </message>
</context>
<context>
    <name>ConversationListModel</name>
    <message>
        <source>window {state}</source>
        <translation>janela {state}</translation>
    </message>
    <message numerus="yes">
        <source>%n unread</source>
        <translation>
            <numerusform>%Ln não lida</numerusform>
            <numerusform>%Ln não lidas</numerusform>
        </translation>
    </message>
    <message>
        <source>labels: {labels}</source>
        <translation>etiquetas: {labels}</translation>
    </message>
    <message>
        <source>opted out of marketing</source>
        <translation>saiu do marketing</translation>
    </message>
</context>
<context>
    <name>DetailsPane</name>
    <message>
        <source>Contact</source>
        <translation>Contato</translation>
    </message>
    <message>
        <source>Contact name</source>
        <translation>Nome do contato</translation>
    </message>
    <message>
        <source>Contact number</source>
        <translation>Número do contato</translation>
    </message>
    <message>
        <source>Window state</source>
        <translation>Estado da janela</translation>
    </message>
    <message>
        <source>Marketing</source>
        <translation>Marketing</translation>
    </message>
    <message>
        <source>Assignee</source>
        <translation>Responsável</translation>
    </message>
    <message>
        <source>Conversation status</source>
        <translation>Status da conversa</translation>
    </message>
    <message>
        <source>Name</source>
        <translation>Nome</translation>
    </message>
    <message>
        <source>Number</source>
        <translation>Número</translation>
    </message>
    <message>
        <source>Status</source>
        <translation>Status</translation>
    </message>
    <message>
        <source>Window</source>
        <translation>Janela</translation>
    </message>
    <message>
        <source>Assign to me</source>
        <translation>Atribuir a mim</translation>
    </message>
    <message>
        <source>Assign to…</source>
        <translation>Atribuir a…</translation>
    </message>
    <message>
        <source>Assign to someone else</source>
        <translation>Atribuir a outra pessoa</translation>
    </message>
    <message>
        <source>Labels</source>
        <translation>Etiquetas</translation>
    </message>
    <message>
        <source>Labels of the conversation</source>
        <translation>Etiquetas da conversa</translation>
    </message>
    <message>
        <source>No labels</source>
        <translation>Sem etiquetas</translation>
    </message>
    <message>
        <source>Add a label…</source>
        <translation>Adicionar uma etiqueta…</translation>
    </message>
    <message>
        <source>Add a label</source>
        <translation>Adicionar uma etiqueta</translation>
    </message>
    <message>
        <source>Selected message</source>
        <translation>Mensagem selecionada</translation>
    </message>
    <message>
        <source>Purpose</source>
        <translation>Finalidade</translation>
    </message>
    <message>
        <source>Trigger</source>
        <translation>Origem</translation>
    </message>
    <message>
        <source>State</source>
        <translation>Estado</translation>
    </message>
    <message>
        <source>Message key</source>
        <translation>Chave da mensagem</translation>
    </message>
    <message>
        <source>Error</source>
        <translation>Erro</translation>
    </message>
    <message>
        <source>Key</source>
        <translation>Chave</translation>
    </message>
    <message>
        <source>Problem</source>
        <translation>Problema</translation>
    </message>
    <message>
        <source>Link to message…</source>
        <translation>Vincular a uma mensagem…</translation>
    </message>
    <message>
        <source>Link reply to a message</source>
        <translation>Vincular a resposta a uma mensagem</translation>
    </message>
    <message>
        <source>Give back</source>
        <translation>Devolver</translation>
    </message>
    <message>
        <source>Give the conversation back</source>
        <translation>Devolver a conversa</translation>
    </message>
    <message>
        <source>Assigned to {name}: a supervisor can reassign it.</source>
        <translation>Atribuída a {name}: um supervisor pode reatribuí-la.</translation>
    </message>
    <message>
        <source>(no profile name)</source>
        <translation>(sem nome de perfil)</translation>
    </message>
    <message>
        <source>WhatsApp id {id}</source>
        <translation>ID do WhatsApp {id}</translation>
    </message>
    <message>
        <source>open, {countdown}</source>
        <translation>aberta, {countdown}</translation>
    </message>
    <message>
        <source>closed: only templates can be sent</source>
        <translation>fechada: só é possível enviar modelos</translation>
    </message>
    <message>
        <source>{mark}: service replies still go</source>
        <translation>{mark}: respostas de atendimento ainda chegam</translation>
    </message>
    <message>
        <source>allowed (no opt-out)</source>
        <translation>permitido (sem descadastro)</translation>
    </message>
    <message>
        <source>nobody</source>
        <translation>ninguém</translation>
    </message>
    <message>
        <source>customer message</source>
        <translation>mensagem do cliente</translation>
    </message>
    <message>
        <source>answers {message}</source>
        <translation>responde a {message}</translation>
    </message>
    <message>
        <source>internal note</source>
        <translation>nota interna</translation>
    </message>
    <message>
        <source>by {author}</source>
        <translation>por {author}</translation>
    </message>
    <message>
        <source>seen by the team only, never sent to the customer</source>
        <translation>vista só pela equipe, nunca enviada ao cliente</translation>
    </message>
    <message>
        <source>note {number}</source>
        <translation>nota {number}</translation>
    </message>
    <message>
        <source>Remove label {label}</source>
        <translation>Remover a etiqueta {label}</translation>
    </message>
    <message>
        <source>Remove the label “{label}”</source>
        <translation>Remover a etiqueta “{label}”</translation>
    </message>
</context>
<context>
    <name>HealthView</name>
    <message>
        <source>Sending for over 1 min</source>
        <translation>Enviando há mais de 1 min</translation>
    </message>
    <message>
        <source>rows claimed but not answered for a minute</source>
        <translation>linhas reservadas mas sem resposta por um minuto</translation>
    </message>
    <message>
        <source>Dedupe rejections</source>
        <translation>Rejeições por duplicidade</translation>
    </message>
    <message>
        <source>second enqueues of the same business event, refused</source>
        <translation>segundas inclusões do mesmo evento de negócio, recusadas</translation>
    </message>
    <message>
        <source>Duplicate webhooks</source>
        <translation>Webhooks duplicados</translation>
    </message>
    <message>
        <source>webhook events received again and ignored</source>
        <translation>eventos de webhook recebidos de novo e ignorados</translation>
    </message>
    <message>
        <source>Unattributed replies</source>
        <translation>Respostas sem vínculo</translation>
    </message>
    <message>
        <source>replies waiting in the work queue</source>
        <translation>respostas esperando na fila de trabalho</translation>
    </message>
    <message>
        <source>Sent → delivered (last hour)</source>
        <translation>Enviada → entregue (última hora)</translation>
    </message>
    <message>
        <source>median and 95th percentile</source>
        <translation>mediana e percentil 95</translation>
    </message>
    <message>
        <source>Outgoing webhooks</source>
        <translation>Webhooks de saída</translation>
    </message>
    <message>
        <source>subscriptions off after 3 days of failures / deliveries waiting</source>
        <translation>assinaturas desativadas após 3 dias de falhas / entregas aguardando</translation>
    </message>
    <message>
        <source>Last backup</source>
        <translation>Último backup</translation>
    </message>
    <message>
        <source>red after two days without one (inbox db backup)</source>
        <translation>fica vermelho após dois dias sem backup (inbox db backup)</translation>
    </message>
    <message>
        <source>Free disk (data folder)</source>
        <translation>Disco livre (pasta de dados)</translation>
    </message>
    <message>
        <source>red under 1 GB</source>
        <translation>vermelho abaixo de 1 GB</translation>
    </message>
    <message>
        <source>never</source>
        <translation>nunca</translation>
    </message>
    <message>
        <source>{count} min ago</source>
        <translation>há {count} min</translation>
    </message>
    <message>
        <source>{count} h ago</source>
        <translation>há {count} h</translation>
    </message>
    <message numerus="yes">
        <source>%n day(s) ago</source>
        <translation>
            <numerusform>há %Ln dia</numerusform>
            <numerusform>há %Ln dias</numerusform>
        </translation>
    </message>
    <message>
        <source>{size} GB</source>
        <translation>{size} GB</translation>
    </message>
    <message>
        <source>{size} MB</source>
        <translation>{size} MB</translation>
    </message>
    <message>
        <source>{size} KB</source>
        <translation>{size} KB</translation>
    </message>
    <message numerus="yes">
        <source>%n byte(s)</source>
        <translation>
            <numerusform>%Ln byte</numerusform>
            <numerusform>%Ln bytes</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n file(s)</source>
        <translation>
            <numerusform>%Ln arquivo</numerusform>
            <numerusform>%Ln arquivos</numerusform>
        </translation>
    </message>
    <message>
        <source>{count} downloading</source>
        <translation>{count} baixando</translation>
    </message>
    <message>
        <source>{count} could not be downloaded</source>
        <translation>{count} não puderam ser baixados</translation>
    </message>
    <message>
        <source>Media kept: {files}, {size}</source>
        <translation>Mídia guardada: {files}, {size}</translation>
    </message>
    <message>
        <source>Queue depth by state</source>
        <translation>Tamanho da fila por estado</translation>
    </message>
    <message>
        <source>{state} messages</source>
        <translation>Mensagens no estado {state}</translation>
    </message>
    <message>
        <source>Business number (as Meta rates it)</source>
        <translation>Número da empresa (segundo a avaliação da Meta)</translation>
    </message>
    <message>
        <source>not read yet</source>
        <translation>ainda não lido</translation>
    </message>
    <message>
        <source>Quality rating</source>
        <translation>Classificação de qualidade</translation>
    </message>
    <message>
        <source>Messaging limit</source>
        <translation>Limite de mensagens</translation>
    </message>
    <message>
        <source>Quality warning</source>
        <translation>Aviso de qualidade</translation>
    </message>
    <message>
        <source>Quality and limit history</source>
        <translation>Histórico de qualidade e limite</translation>
    </message>
    <message>
        <source>Sent → delivered gap (median per interval)</source>
        <translation>Intervalo enviada → entregue (mediana por intervalo)</translation>
    </message>
    <message>
        <source>seconds</source>
        <translation>segundos</translation>
    </message>
    <message>
        <source>Send rate</source>
        <translation>Taxa de envio</translation>
    </message>
    <message>
        <source>messages / minute</source>
        <translation>mensagens / minuto</translation>
    </message>
    <message>
        <source>Media kept: none yet</source>
        <translation>Mídia guardada: nada ainda</translation>
    </message>
    <message>
        <source>{p50} s / {p95} s</source>
        <translation>{p50} s / {p95} s</translation>
    </message>
    <message>
        <source>{disabled} off / {waiting}</source>
        <translation>{disabled} desativadas / {waiting}</translation>
    </message>
    <message>
        <source>Health measures unavailable: {reason}</source>
        <translation>Medidas de saúde indisponíveis: {reason}</translation>
    </message>
</context>
<context>
    <name>InboxView</name>
    <message>
        <source>Mine</source>
        <translation>Minhas</translation>
    </message>
    <message>
        <source>Unassigned</source>
        <translation>Sem responsável</translation>
    </message>
    <message>
        <source>All</source>
        <translation>Todas</translation>
    </message>
    <message>
        <source>Open and pending</source>
        <translation>Abertas e pendentes</translation>
    </message>
    <message>
        <source>Open</source>
        <translation>Abertas</translation>
    </message>
    <message>
        <source>Pending</source>
        <translation>Pendentes</translation>
    </message>
    <message>
        <source>Snoozed</source>
        <translation>Adiadas</translation>
    </message>
    <message>
        <source>Resolved</source>
        <translation>Resolvidas</translation>
    </message>
    <message>
        <source>All statuses</source>
        <translation>Todos os status</translation>
    </message>
    <message>
        <source>Any window</source>
        <translation>Qualquer janela</translation>
    </message>
    <message>
        <source>Window open</source>
        <translation>Janela aberta</translation>
    </message>
    <message>
        <source>Window closing within the hour</source>
        <translation>Janela fechando em menos de uma hora</translation>
    </message>
    <message>
        <source>Window closed</source>
        <translation>Janela fechada</translation>
    </message>
    <message>
        <source>Any label</source>
        <translation>Qualquer etiqueta</translation>
    </message>
    <message>
        <source>Show the conversations: {view}</source>
        <translation>Mostrar as conversas: {view}</translation>
    </message>
    <message>
        <source>Show conversations by status</source>
        <translation>Mostrar conversas por status</translation>
    </message>
    <message>
        <source>Search name or number  (Ctrl+K)</source>
        <translation>Buscar nome ou número  (Ctrl+K)</translation>
    </message>
    <message>
        <source>Search conversations</source>
        <translation>Buscar conversas</translation>
    </message>
    <message>
        <source>Filter by window</source>
        <translation>Filtrar por janela</translation>
    </message>
    <message>
        <source>Filter by label</source>
        <translation>Filtrar por etiqueta</translation>
    </message>
    <message>
        <source>Conversations</source>
        <translation>Conversas</translation>
    </message>
    <message>
        <source>Select a conversation</source>
        <translation>Selecione uma conversa</translation>
    </message>
    <message>
        <source>Colleagues in this conversation</source>
        <translation>Colegas nesta conversa</translation>
    </message>
    <message>
        <source>Conversation status</source>
        <translation>Status da conversa</translation>
    </message>
    <message>
        <source>Resolve</source>
        <translation>Resolver</translation>
    </message>
    <message>
        <source>Mark pending</source>
        <translation>Marcar pendente</translation>
    </message>
    <message>
        <source>Reopen</source>
        <translation>Reabrir</translation>
    </message>
    <message>
        <source>Snooze</source>
        <translation>Adiar</translation>
    </message>
    <message>
        <source>Snooze the conversation</source>
        <translation>Adiar a conversa</translation>
    </message>
    <message>
        <source>Snooze until later  ({shortcut})</source>
        <translation>Adiar para mais tarde  ({shortcut})</translation>
    </message>
    <message>
        <source>Thread</source>
        <translation>Conversa</translation>
    </message>
    <message>
        <source>Mark the conversation pending</source>
        <translation>Marcar a conversa como pendente</translation>
    </message>
    <message>
        <source>{action} the conversation</source>
        <translation>{action}: a conversa</translation>
    </message>
    <message>
        <source>That message is no longer in this conversation&apos;s thread.</source>
        <translation>Essa mensagem não está mais no histórico desta conversa.</translation>
    </message>
    <message>
        <source>Reply queued.</source>
        <translation>Resposta na fila.</translation>
    </message>
    <message>
        <source>Note added.</source>
        <translation>Nota adicionada.</translation>
    </message>
    <message>
        <source>Your user name is not known yet: try again in a moment.</source>
        <translation>Seu nome de usuário ainda não é conhecido: tente de novo em instantes.</translation>
    </message>
    <message>
        <source>Assign conversation</source>
        <translation>Atribuir conversa</translation>
    </message>
    <message>
        <source>Assign to user (empty to unassign):</source>
        <translation>Atribuir ao usuário (vazio para remover o responsável):</translation>
    </message>
    <message>
        <source>Assigned to {name}.</source>
        <translation>Atribuída a {name}.</translation>
    </message>
    <message>
        <source>nobody</source>
        <translation>ninguém</translation>
    </message>
    <message>
        <source>Reply linked.</source>
        <translation>Resposta vinculada.</translation>
    </message>
</context>
<context>
    <name>LinkChooser</name>
    <message>
        <source>The messages it may answer, newest first</source>
        <translation>As mensagens que ela pode responder, da mais recente para a mais antiga</translation>
    </message>
    <message>
        <source>Recent messages to this customer</source>
        <translation>Mensagens recentes para este cliente</translation>
    </message>
    <message>
        <source>sent {time}</source>
        <translation>enviada {time}</translation>
    </message>
    <message>
        <source>not sent yet</source>
        <translation>ainda não enviada</translation>
    </message>
    <message>
        <source>Message to link to</source>
        <translation>Mensagem a vincular</translation>
    </message>
    <message>
        <source>Link to this message</source>
        <translation>Vincular a esta mensagem</translation>
    </message>
    <message>
        <source>Link to the chosen message</source>
        <translation>Vincular à mensagem escolhida</translation>
    </message>
    <message>
        <source>Mark as new topic</source>
        <translation>Marcar como assunto novo</translation>
    </message>
    <message>
        <source>Loading recent messages…</source>
        <translation>Carregando mensagens recentes…</translation>
    </message>
    <message>
        <source>Saving…</source>
        <translation>Salvando…</translation>
    </message>
</context>
<context>
    <name>LinkDialog</name>
    <message>
        <source>Link reply to a message</source>
        <translation>Vincular a resposta a uma mensagem</translation>
    </message>
</context>
<context>
    <name>LinkPicker</name>
    <message>
        <source>No recent messages to this customer: mark it as a new topic.</source>
        <translation>Não há mensagens recentes para este cliente: marque como assunto novo.</translation>
    </message>
    <message>
        <source>Linked.</source>
        <translation>Vinculada.</translation>
    </message>
    <message>
        <source>Marked as a new topic.</source>
        <translation>Marcada como assunto novo.</translation>
    </message>
</context>
<context>
    <name>MainWindow</name>
    <message>
        <source>System colours</source>
        <translation>Cores do sistema</translation>
    </message>
    <message>
        <source>Light</source>
        <translation>Claro</translation>
    </message>
    <message>
        <source>Dark</source>
        <translation>Escuro</translation>
    </message>
    <message>
        <source>New reply from {name}</source>
        <translation>Nova resposta de {name}</translation>
    </message>
    <message>
        <source>{name} is still waiting for an answer: their window closes within the hour</source>
        <translation>{name} ainda está esperando uma resposta: a janela fecha em menos de uma hora</translation>
    </message>
    <message>
        <source>{author} mentioned you in a note on {name}</source>
        <translation>{author} mencionou você em uma nota sobre {name}</translation>
    </message>
    <message>
        <source>WhatsApp shared inbox</source>
        <translation>Caixa compartilhada do WhatsApp</translation>
    </message>
    <message>
        <source>Connection status</source>
        <translation>Estado da conexão</translation>
    </message>
    <message>
        <source>Sections</source>
        <translation>Seções</translation>
    </message>
    <message>
        <source>&amp;Inbox</source>
        <translation>&amp;Caixa de entrada</translation>
    </message>
    <message>
        <source>Work queue</source>
        <translation>Fila de trabalho</translation>
    </message>
    <message>
        <source>Supervisor</source>
        <translation>Supervisão</translation>
    </message>
    <message>
        <source>Health</source>
        <translation>Saúde</translation>
    </message>
    <message>
        <source>Reports</source>
        <translation>Relatórios</translation>
    </message>
    <message>
        <source>Search messages</source>
        <translation>Buscar mensagens</translation>
    </message>
    <message>
        <source>Search words in every conversation</source>
        <translation>Buscar palavras em todas as conversas</translation>
    </message>
    <message>
        <source>Search words in every conversation  ({shortcut})</source>
        <translation>Buscar palavras em todas as conversas  ({shortcut})</translation>
    </message>
    <message>
        <source>Canned replies</source>
        <translation>Respostas prontas</translation>
    </message>
    <message>
        <source>The team&apos;s saved replies: type / and a shortcut in the composer</source>
        <translation>As respostas salvas da equipe: digite / e um atalho no editor</translation>
    </message>
    <message>
        <source>Language</source>
        <translation>Idioma</translation>
    </message>
    <message>
        <source>The language of the inbox</source>
        <translation>O idioma da caixa de entrada</translation>
    </message>
    <message>
        <source>Colour scheme</source>
        <translation>Esquema de cores</translation>
    </message>
    <message>
        <source>Shortcuts</source>
        <translation>Atalhos</translation>
    </message>
    <message>
        <source>Keyboard shortcuts</source>
        <translation>Atalhos de teclado</translation>
    </message>
    <message>
        <source>Every keyboard shortcut  ({shortcut})</source>
        <translation>Todos os atalhos de teclado  ({shortcut})</translation>
    </message>
    <message>
        <source>Connecting…</source>
        <translation>Conectando…</translation>
    </message>
    <message>
        <source>Could not load: {reason}</source>
        <translation>Não foi possível carregar: {reason}</translation>
    </message>
    <message>
        <source>Connected: live updates on.</source>
        <translation>Conectado: atualizações ao vivo ativadas.</translation>
    </message>
    <message>
        <source>Work queue ({count})</source>
        <translation>Fila de trabalho ({count})</translation>
    </message>
    <message>
        <source>Supervisor ({count})</source>
        <translation>Supervisão ({count})</translation>
    </message>
    <message>
        <source>Connection to the backend lost — reconnecting…  ({reason})</source>
        <translation>Conexão com o servidor perdida — reconectando…  ({reason})</translation>
    </message>
    <message>
        <source>Reconnected; nothing was missed.</source>
        <translation>Reconectado; nada foi perdido.</translation>
    </message>
    <message>
        <source>The inbox was restored from a backup; everything shown was loaded again.</source>
        <translation>A caixa de entrada foi restaurada de um backup; tudo o que aparece foi carregado de novo.</translation>
    </message>
    <message>
        <source>A colleague</source>
        <translation>Um colega</translation>
    </message>
    <message>
        <source>a customer</source>
        <translation>um cliente</translation>
    </message>
</context>
<context>
    <name>MediaActions</name>
    <message>
        <source>Save file</source>
        <translation>Salvar arquivo</translation>
    </message>
    <message>
        <source>The file is still downloading from WhatsApp.</source>
        <translation>O arquivo ainda está sendo baixado do WhatsApp.</translation>
    </message>
    <message>
        <source>Photo</source>
        <translation>Foto</translation>
    </message>
    <message>
        <source>Stopped the voice note.</source>
        <translation>Mensagem de voz parada.</translation>
    </message>
    <message>
        <source>Could not play the voice note: {reason}</source>
        <translation>Não foi possível tocar a mensagem de voz: {reason}</translation>
    </message>
    <message>
        <source>Downloading the file again…</source>
        <translation>Baixando o arquivo de novo…</translation>
    </message>
    <message>
        <source>Playing the voice note…</source>
        <translation>Tocando a mensagem de voz…</translation>
    </message>
    <message>
        <source>Saved {name}.</source>
        <translation>{name} salvo.</translation>
    </message>
    <message>
        <source>Could not open the file: {reason}</source>
        <translation>Não foi possível abrir o arquivo: {reason}</translation>
    </message>
</context>
<context>
    <name>PictureViewer</name>
    <message>
        <source>Picture</source>
        <translation>Imagem</translation>
    </message>
</context>
<context>
    <name>ReportTableModel</name>
    <message>
        <source>{count} s</source>
        <translation>{count} s</translation>
    </message>
    <message>
        <source>{count} min</source>
        <translation>{count} min</translation>
    </message>
    <message>
        <source>{hours} h {minutes} min</source>
        <translation>{hours} h {minutes} min</translation>
    </message>
    <message>
        <source>{count} h</source>
        <translation>{count} h</translation>
    </message>
    <message>
        <source>{days} d {hours} h</source>
        <translation>{days} d {hours} h</translation>
    </message>
    <message>
        <source>{count} d</source>
        <translation>{count} d</translation>
    </message>
    <message>
        <source>Person</source>
        <translation>Pessoa</translation>
    </message>
    <message>
        <source>Replies</source>
        <translation>Respostas</translation>
    </message>
    <message>
        <source>Resolved</source>
        <translation>Resolvidas</translation>
    </message>
    <message>
        <source>First response (median)</source>
        <translation>Primeira resposta (mediana)</translation>
    </message>
    <message>
        <source>First response (90 %)</source>
        <translation>Primeira resposta (90 %)</translation>
    </message>
    <message>
        <source>Purpose</source>
        <translation>Finalidade</translation>
    </message>
    <message>
        <source>Sent</source>
        <translation>Enviadas</translation>
    </message>
    <message>
        <source>Delivered</source>
        <translation>Entregues</translation>
    </message>
    <message>
        <source>Read</source>
        <translation>Lidas</translation>
    </message>
    <message>
        <source>Failed</source>
        <translation>Com falha</translation>
    </message>
    <message>
        <source>Unknown</source>
        <translation>Desconhecidas</translation>
    </message>
    <message>
        <source>Replied</source>
        <translation>Respondidas</translation>
    </message>
</context>
<context>
    <name>ReportsView</name>
    <message>
        <source>Today</source>
        <translation>Hoje</translation>
    </message>
    <message>
        <source>Yesterday</source>
        <translation>Ontem</translation>
    </message>
    <message>
        <source>Last 7 days</source>
        <translation>Últimos 7 dias</translation>
    </message>
    <message>
        <source>Last 30 days</source>
        <translation>Últimos 30 dias</translation>
    </message>
    <message>
        <source>This month</source>
        <translation>Este mês</translation>
    </message>
    <message>
        <source>Custom range</source>
        <translation>Período personalizado</translation>
    </message>
    <message>
        <source>Days or hours</source>
        <translation>Dias ou horas</translation>
    </message>
    <message>
        <source>People</source>
        <translation>Pessoas</translation>
    </message>
    <message>
        <source>Purposes</source>
        <translation>Finalidades</translation>
    </message>
    <message>
        <source>Report range</source>
        <translation>Período do relatório</translation>
    </message>
    <message>
        <source>From day</source>
        <translation>Do dia</translation>
    </message>
    <message>
        <source>To day (included)</source>
        <translation>Até o dia (incluído)</translation>
    </message>
    <message>
        <source>Report periods</source>
        <translation>Períodos do relatório</translation>
    </message>
    <message>
        <source>By day</source>
        <translation>Por dia</translation>
    </message>
    <message>
        <source>By hour</source>
        <translation>Por hora</translation>
    </message>
    <message>
        <source>Refresh</source>
        <translation>Atualizar</translation>
    </message>
    <message>
        <source>Export CSV</source>
        <translation>Exportar CSV</translation>
    </message>
    <message>
        <source>Export the report as CSV</source>
        <translation>Exportar o relatório como CSV</translation>
    </message>
    <message>
        <source>Range</source>
        <translation>Período</translation>
    </message>
    <message>
        <source>to</source>
        <translation>até</translation>
    </message>
    <message>
        <source>Messages per period</source>
        <translation>Mensagens por período</translation>
    </message>
    <message>
        <source>First response time per period</source>
        <translation>Tempo da primeira resposta por período</translation>
    </message>
    <message>
        <source>Per person</source>
        <translation>Por pessoa</translation>
    </message>
    <message>
        <source>Per purpose (business messages queued in the range)</source>
        <translation>Por finalidade (mensagens da empresa enfileiradas no período)</translation>
    </message>
    <message>
        <source>The report&apos;s first day is after its last day.</source>
        <translation>O primeiro dia do relatório é depois do último.</translation>
    </message>
    <message>
        <source>Report unavailable: {reason}</source>
        <translation>Relatório indisponível: {reason}</translation>
    </message>
    <message>
        <source>{inbound} in · {outbound} out · {resolved} resolved</source>
        <translation>{inbound} recebidas · {outbound} enviadas · {resolved} resolvidas</translation>
    </message>
    <message>
        <source>Messages</source>
        <translation>Mensagens</translation>
    </message>
    <message>
        <source>From customers</source>
        <translation>Dos clientes</translation>
    </message>
    <message>
        <source>From the business</source>
        <translation>Da empresa</translation>
    </message>
    <message>
        <source>messages</source>
        <translation>mensagens</translation>
    </message>
    <message>
        <source>First response ({unit})</source>
        <translation>Primeira resposta ({unit})</translation>
    </message>
    <message>
        <source>Median</source>
        <translation>Mediana</translation>
    </message>
    <message>
        <source>90 % within</source>
        <translation>90 % em até</translation>
    </message>
    <message>
        <source>CSV files (*.csv)</source>
        <translation>Arquivos CSV (*.csv)</translation>
    </message>
    <message>
        <source>Saved {path}</source>
        <translation>Salvo em {path}</translation>
    </message>
    <message>
        <source>Could not export the report: {reason}</source>
        <translation>Não foi possível exportar o relatório: {reason}</translation>
    </message>
    <message>
        <source>seconds</source>
        <translation>segundos</translation>
    </message>
    <message>
        <source>minutes</source>
        <translation>minutos</translation>
    </message>
    <message>
        <source>hours</source>
        <translation>horas</translation>
    </message>
</context>
<context>
    <name>SearchDialog</name>
    <message>
        <source>Type words to find them in every conversation: any case, accents optional.</source>
        <translation>Digite palavras para encontrá-las em todas as conversas: sem diferenciar maiúsculas, acentos opcionais.</translation>
    </message>
    <message>
        <source>customer wrote</source>
        <translation>o cliente escreveu</translation>
    </message>
    <message>
        <source>we sent</source>
        <translation>enviamos</translation>
    </message>
    <message>
        <source>Search for at most {count} characters.</source>
        <translation>Busque no máximo {count} caracteres.</translation>
    </message>
    <message>
        <source>Searching…</source>
        <translation>Buscando…</translation>
    </message>
    <message>
        <source>No message contains “{query}”.</source>
        <translation>Nenhuma mensagem contém “{query}”.</translation>
    </message>
    <message numerus="yes">
        <source>%n+ messages found.</source>
        <translation>
            <numerusform>Mais de %Ln mensagem encontrada.</numerusform>
            <numerusform>Mais de %Ln mensagens encontradas.</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n message(s) found.</source>
        <translation>
            <numerusform>%Ln mensagem encontrada.</numerusform>
            <numerusform>%Ln mensagens encontradas.</numerusform>
        </translation>
    </message>
    <message>
        <source>Search failed: {reason}</source>
        <translation>A busca falhou: {reason}</translation>
    </message>
    <message>
        <source>Search messages</source>
        <translation>Buscar mensagens</translation>
    </message>
</context>
<context>
    <name>SearchView</name>
    <message>
        <source>Search words in every conversation…</source>
        <translation>Buscar palavras em todas as conversas…</translation>
    </message>
    <message>
        <source>Search messages</source>
        <translation>Buscar mensagens</translation>
    </message>
    <message>
        <source>Messages found</source>
        <translation>Mensagens encontradas</translation>
    </message>
    <message>
        <source>More results</source>
        <translation>Mais resultados</translation>
    </message>
    <message>
        <source>Load more results</source>
        <translation>Carregar mais resultados</translation>
    </message>
</context>
<context>
    <name>ShortcutsDialog</name>
    <message>
        <source>Show this list of shortcuts</source>
        <translation>Mostrar esta lista de atalhos</translation>
    </message>
    <message>
        <source>Inbox</source>
        <translation>Caixa de entrada</translation>
    </message>
    <message>
        <source>Work queue</source>
        <translation>Fila de trabalho</translation>
    </message>
    <message>
        <source>Supervisor (supervisors only)</source>
        <translation>Supervisão (só supervisores)</translation>
    </message>
    <message>
        <source>Health</source>
        <translation>Saúde</translation>
    </message>
    <message>
        <source>Reports (supervisors only)</source>
        <translation>Relatórios (só supervisores)</translation>
    </message>
    <message>
        <source>Search conversations by name or number</source>
        <translation>Buscar conversas por nome ou número</translation>
    </message>
    <message>
        <source>Search words in every message</source>
        <translation>Buscar palavras em todas as mensagens</translation>
    </message>
    <message>
        <source>Send the reply or add the note</source>
        <translation>Enviar a resposta ou adicionar a nota</translation>
    </message>
    <message>
        <source>Switch between a reply and an internal note</source>
        <translation>Alternar entre uma resposta e uma nota interna</translation>
    </message>
    <message>
        <source>Resolve the conversation</source>
        <translation>Resolver a conversa</translation>
    </message>
    <message>
        <source>Snooze the conversation</source>
        <translation>Adiar a conversa</translation>
    </message>
    <message>
        <source>Mark the conversation pending</source>
        <translation>Marcar a conversa como pendente</translation>
    </message>
    <message>
        <source>Reopen the conversation</source>
        <translation>Reabrir a conversa</translation>
    </message>
    <message>
        <source>Move to the next or previous control</source>
        <translation>Ir para o controle seguinte ou anterior</translation>
    </message>
    <message>
        <source>Press the focused button, open the chosen item</source>
        <translation>Apertar o botão em foco, abrir o item escolhido</translation>
    </message>
    <message>
        <source>In the composer: insert a canned reply by its shortcut</source>
        <translation>No editor: inserir uma resposta pronta pelo atalho</translation>
    </message>
    <message>
        <source>Close a dialog without changing anything</source>
        <translation>Fechar uma janela sem mudar nada</translation>
    </message>
    <message>
        <source>Keyboard shortcuts</source>
        <translation>Atalhos de teclado</translation>
    </message>
    <message>
        <source>Everything in the inbox can be done with the keyboard alone.</source>
        <translation>Tudo na caixa de entrada pode ser feito só com o teclado.</translation>
    </message>
    <message>
        <source>Shortcuts and what they do</source>
        <translation>Atalhos e o que fazem</translation>
    </message>
    <message>
        <source>Keys</source>
        <translation>Teclas</translation>
    </message>
    <message>
        <source>What it does</source>
        <translation>O que faz</translation>
    </message>
</context>
<context>
    <name>SignInDialog</name>
    <message>
        <source>The sign-in could not be checked: {reason}</source>
        <translation>Não foi possível verificar o acesso: {reason}</translation>
    </message>
    <message>
        <source>The office&apos;s server does not accept this invite any more (a newer invite was made for this user, or the user was disabled). Ask whoever runs the inbox for a new invite.</source>
        <translation>O servidor do escritório não aceita mais este convite (foi criado um convite mais recente para este usuário, ou o usuário foi desativado). Peça um convite novo a quem administra a caixa de entrada.</translation>
    </message>
    <message>
        <source>Cannot reach the office&apos;s inbox at {url}. Check that the office PC is on, that `inbox serve` runs there, and that this PC is on the office network.</source>
        <translation>Não foi possível acessar a caixa do escritório em {url}. Verifique se o PC do escritório está ligado, se `inbox serve` está rodando lá e se este PC está na rede do escritório.</translation>
    </message>
    <message>
        <source>The office&apos;s server refused the sign-in: {reason}</source>
        <translation>O servidor do escritório recusou o acesso: {reason}</translation>
    </message>
    <message>
        <source>Sign in to the shared inbox</source>
        <translation>Entrar na caixa compartilhada</translation>
    </message>
    <message>
        <source>Invite</source>
        <translation>Convite</translation>
    </message>
    <message>
        <source>inbox://… as printed by `inbox user invite NAME`</source>
        <translation>inbox://… como impresso por `inbox user invite NAME`</translation>
    </message>
    <message>
        <source>Backend URL</source>
        <translation>URL do servidor</translation>
    </message>
    <message>
        <source>API token</source>
        <translation>Token da API</translation>
    </message>
    <message>
        <source>Your user name</source>
        <translation>Seu nome de usuário</translation>
    </message>
    <message>
        <source>as given to `inbox user add` (for Assign to me)</source>
        <translation>como informado a `inbox user add` (para Atribuir a mim)</translation>
    </message>
    <message>
        <source>On another desk, paste the invite from the office PC. On the office PC itself, the token printed by `inbox user add NAME` is enough. It is remembered on this computer.</source>
        <translation>Em outra mesa, cole o convite do PC do escritório. No próprio PC do escritório, basta o token impresso por `inbox user add NAME`. Ele fica guardado neste computador.</translation>
    </message>
    <message>
        <source>Inbox servers on this network</source>
        <translation>Servidores da caixa nesta rede</translation>
    </message>
    <message>
        <source>Inbox servers on this network (only an invite makes one trusted):</source>
        <translation>Servidores da caixa nesta rede (só um convite torna um deles confiável):</translation>
    </message>
    <message>
        <source>Sign-in problem</source>
        <translation>Problema ao entrar</translation>
    </message>
    <message>
        <source>{name} — {address} (certificate {fingerprint}…)</source>
        <translation>{name} — {address} (certificado {fingerprint}…)</translation>
    </message>
    <message>
        <source>A server on the office network is trusted through its invite: paste the invite.</source>
        <translation>Um servidor da rede do escritório é confiável por meio do convite: cole o convite.</translation>
    </message>
    <message>
        <source>Checking the office&apos;s server…</source>
        <translation>Verificando o servidor do escritório…</translation>
    </message>
</context>
<context>
    <name>SupervisorModel</name>
    <message>
        <source>customer</source>
        <translation>cliente</translation>
    </message>
    <message>
        <source>{mark} {state}  ·  {who}  ·  {purpose}  ·  {age} old</source>
        <translation>{mark} {state}  ·  {who}  ·  {purpose}  ·  há {age}</translation>
    </message>
</context>
<context>
    <name>SupervisorView</name>
    <message>
        <source>If the first attempt did reach {customer}, they will get this message twice.</source>
        <translation>Se a primeira tentativa chegou a {customer}, a pessoa vai receber esta mensagem duas vezes.</translation>
    </message>
    <message>
        <source>{customer} has not received it: it was held, not sent.</source>
        <translation>{customer} não recebeu: ela foi retida, não enviada.</translation>
    </message>
    <message>
        <source>Send this message to {customer} again?</source>
        <translation>Enviar esta mensagem para {customer} de novo?</translation>
    </message>
    <message>
        <source>Resend?</source>
        <translation>Reenviar?</translation>
    </message>
    <message>
        <source>Mark as sent?</source>
        <translation>Marcar como enviada?</translation>
    </message>
    <message>
        <source>Record the message to {customer} as sent, without sending anything?

Choose this only if you know {customer} received it; otherwise they will never get it.</source>
        <translation>Registrar a mensagem para {customer} como enviada, sem enviar nada?

Escolha isto só se você sabe que {customer} recebeu; senão a pessoa nunca vai recebê-la.</translation>
    </message>
    <message>
        <source>Cancel the message?</source>
        <translation>Cancelar a mensagem?</translation>
    </message>
    <message>
        <source>Cancel the message to {customer}? It will not be sent again.

If an earlier attempt reached {customer}, they keep that one copy.</source>
        <translation>Cancelar a mensagem para {customer}? Ela não será enviada de novo.

Se uma tentativa anterior chegou a {customer}, a pessoa fica com essa única cópia.</translation>
    </message>
    <message>
        <source>Sends needing a decision</source>
        <translation>Envios que precisam de uma decisão</translation>
    </message>
    <message>
        <source>Select a send on the left.</source>
        <translation>Selecione um envio à esquerda.</translation>
    </message>
    <message>
        <source>Customer</source>
        <translation>Cliente</translation>
    </message>
    <message>
        <source>Message</source>
        <translation>Mensagem</translation>
    </message>
    <message>
        <source>Purpose</source>
        <translation>Finalidade</translation>
    </message>
    <message>
        <source>State</source>
        <translation>Estado</translation>
    </message>
    <message>
        <source>Attempts</source>
        <translation>Tentativas</translation>
    </message>
    <message>
        <source>Age</source>
        <translation>Idade</translation>
    </message>
    <message>
        <source>Last error</source>
        <translation>Último erro</translation>
    </message>
    <message>
        <source>Key</source>
        <translation>Chave</translation>
    </message>
    <message>
        <source>Evidence</source>
        <translation>Evidências</translation>
    </message>
    <message>
        <source>Mark sent</source>
        <translation>Marcar enviada</translation>
    </message>
    <message>
        <source>Resend</source>
        <translation>Reenviar</translation>
    </message>
    <message>
        <source>Cancel send</source>
        <translation>Cancelar envio</translation>
    </message>
    <message>
        <source>Send</source>
        <translation>Enviar</translation>
    </message>
    <message>
        <source>the customer</source>
        <translation>o cliente</translation>
    </message>
    <message>
        <source>No status from WhatsApp for this send yet.</source>
        <translation>Ainda não há status do WhatsApp para este envio.</translation>
    </message>
    <message>
        <source>Recorded: {key} is now {state}.</source>
        <translation>Registrado: {key} agora está {state}.</translation>
    </message>
</context>
<context>
    <name>ThreadModel</name>
    <message>
        <source>We sent, {time}, {state}: {text}</source>
        <translation>Enviamos, {time}, {state}: {text}</translation>
    </message>
    <message>
        <source>Note by {author}, {time}: {text}</source>
        <translation>Nota de {author}, {time}: {text}</translation>
    </message>
    <message>
        <source>Customer, {time}, chose: {choice}</source>
        <translation>Cliente, {time}, escolheu: {choice}</translation>
    </message>
    <message>
        <source>Customer, {time}, not linked to a message: {text}</source>
        <translation>Cliente, {time}, sem vínculo com uma mensagem: {text}</translation>
    </message>
    <message>
        <source>Customer, {time}, not answered: {text}</source>
        <translation>Cliente, {time}, sem resposta: {text}</translation>
    </message>
    <message>
        <source>Customer, {time}: {text}</source>
        <translation>Cliente, {time}: {text}</translation>
    </message>
    <message>
        <source>internal note, never sent to the customer</source>
        <translation>nota interna, nunca enviada ao cliente</translation>
    </message>
</context>
<context>
    <name>WorkQueueModel</name>
    <message>
        <source>{time}   {sender}: {text}</source>
        <translation>{time}   {sender}: {text}</translation>
    </message>
    <message>
        <source>customer</source>
        <translation>cliente</translation>
    </message>
    <message>
        <source>(no text)</source>
        <translation>(sem texto)</translation>
    </message>
    <message numerus="yes">
        <source>{text}   (%n messages it may answer)</source>
        <translation>
            <numerusform>{text}   (%Ln mensagem que ela pode responder)</numerusform>
            <numerusform>{text}   (%Ln mensagens que ela pode responder)</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>WorkQueueView</name>
    <message>
        <source>Unattributed replies</source>
        <translation>Respostas sem vínculo</translation>
    </message>
    <message>
        <source>Select a reply on the left.</source>
        <translation>Selecione uma resposta à esquerda.</translation>
    </message>
    <message>
        <source>Reply</source>
        <translation>Responder</translation>
    </message>
    <message>
        <source>These replies quote none of our messages and came after messages nobody answered yet, so nobody knows which one they answer. Link each to the message it answers (the newest is chosen), or mark it as a new topic.</source>
        <translation>Estas respostas não citam nenhuma das nossas mensagens e chegaram depois de mensagens que ninguém respondeu ainda, então ninguém sabe a qual respondem. Vincule cada uma à mensagem que ela responde (a mais recente já vem escolhida) ou marque como assunto novo.</translation>
    </message>
    <message>
        <source>From {sender} at {time}</source>
        <translation>De {sender} às {time}</translation>
    </message>
    <message>
        <source>customer</source>
        <translation>cliente</translation>
    </message>
</context>
<context>
    <name>delegates</name>
    <message>
        <source>Link to message…</source>
        <translation>Vincular a uma mensagem…</translation>
    </message>
    <message>
        <source>Photo</source>
        <translation>Foto</translation>
    </message>
    <message>
        <source>Sticker</source>
        <translation>Figurinha</translation>
    </message>
    <message>
        <source>Voice note</source>
        <translation>Mensagem de voz</translation>
    </message>
    <message>
        <source>Video</source>
        <translation>Vídeo</translation>
    </message>
    <message>
        <source>Document</source>
        <translation>Documento</translation>
    </message>
    <message>
        <source>click to view</source>
        <translation>clique para ver</translation>
    </message>
    <message>
        <source>click to play</source>
        <translation>clique para tocar</translation>
    </message>
    <message>
        <source>click to save</source>
        <translation>clique para salvar</translation>
    </message>
    <message>
        <source>File</source>
        <translation>Arquivo</translation>
    </message>
    <message>
        <source>playing {position} / {length}</source>
        <translation>tocando {position} / {length}</translation>
    </message>
    <message>
        <source>playing {position}</source>
        <translation>tocando {position}</translation>
    </message>
    <message>
        <source>click to stop</source>
        <translation>clique para parar</translation>
    </message>
    <message>
        <source>{kind}  ·  downloading…</source>
        <translation>{kind}  ·  baixando…</translation>
    </message>
    <message>
        <source>unknown reason</source>
        <translation>motivo desconhecido</translation>
    </message>
    <message>
        <source>could not download: {reason}  ·  Retry</source>
        <translation>não foi possível baixar: {reason}  ·  Tentar de novo</translation>
    </message>
    <message>
        <source>Note by {author}  ·  {time}</source>
        <translation>Nota de {author}  ·  {time}</translation>
    </message>
    <message>
        <source>Failed.</source>
        <translation>Falhou.</translation>
    </message>
    <message>
        <source>⚠ WhatsApp did not confirm this send: a supervisor decides whether to resend.</source>
        <translation>⚠ O WhatsApp não confirmou este envio: um supervisor decide se reenvia.</translation>
    </message>
    <message>
        <source>Held: the customer&apos;s 24-hour window is closed; a template is needed.</source>
        <translation>Retida: a janela de 24 horas do cliente está fechada; é preciso um modelo.</translation>
    </message>
    <message>
        <source>Chose: {choice}</source>
        <translation>Escolheu: {choice}</translation>
    </message>
    <message>
        <source>Reacted {emoji}</source>
        <translation>Reagiu {emoji}</translation>
    </message>
    <message>
        <source>Not linked to a message</source>
        <translation>Sem vínculo com uma mensagem</translation>
    </message>
    <message>
        <source>Loading picture…</source>
        <translation>Carregando imagem…</translation>
    </message>
</context>
<context>
    <name>errors</name>
    <message>
        <source>WhatsApp did not accept our access token. Someone needs to renew it.</source>
        <translation>O WhatsApp não aceitou nosso token de acesso. Alguém precisa renová-lo.</translation>
    </message>
    <message>
        <source>WhatsApp access token expired. Someone needs to renew it.</source>
        <translation>O token de acesso do WhatsApp expirou. Alguém precisa renová-lo.</translation>
    </message>
    <message>
        <source>Too many requests to WhatsApp; it will be tried again later.</source>
        <translation>Solicitações demais ao WhatsApp; será tentado de novo mais tarde.</translation>
    </message>
    <message>
        <source>Sending too fast for WhatsApp; it will be tried again shortly.</source>
        <translation>Enviando rápido demais para o WhatsApp; será tentado de novo em breve.</translation>
    </message>
    <message>
        <source>Not sent: this customer is part of a WhatsApp experiment.</source>
        <translation>Não enviada: este cliente faz parte de um experimento do WhatsApp.</translation>
    </message>
    <message>
        <source>WhatsApp had an unexpected problem sending it.</source>
        <translation>O WhatsApp teve um problema inesperado ao enviar.</translation>
    </message>
    <message>
        <source>WhatsApp was briefly unavailable.</source>
        <translation>O WhatsApp ficou indisponível por um momento.</translation>
    </message>
    <message>
        <source>The customer&apos;s number is our own number.</source>
        <translation>O número do cliente é o nosso próprio número.</translation>
    </message>
    <message>
        <source>The customer cannot receive it: not on WhatsApp, an old app, or they blocked us.</source>
        <translation>O cliente não pode receber: não está no WhatsApp, usa um app antigo ou nos bloqueou.</translation>
    </message>
    <message>
        <source>This number is not on the test allow-list of our WhatsApp account.</source>
        <translation>Este número não está na lista de teste permitida da nossa conta do WhatsApp.</translation>
    </message>
    <message>
        <source>Our WhatsApp account is locked.</source>
        <translation>Nossa conta do WhatsApp está bloqueada.</translation>
    </message>
    <message>
        <source>A billing problem with our WhatsApp account.</source>
        <translation>Um problema de cobrança na nossa conta do WhatsApp.</translation>
    </message>
    <message>
        <source>More than 24 hours since the customer last wrote: only a template can be sent.</source>
        <translation>Mais de 24 horas desde a última mensagem do cliente: só um modelo pode ser enviado.</translation>
    </message>
    <message>
        <source>WhatsApp is limiting us because earlier messages were reported as spam.</source>
        <translation>O WhatsApp está nos limitando porque mensagens anteriores foram denunciadas como spam.</translation>
    </message>
    <message>
        <source>WhatsApp held it back to limit marketing to this customer; try again tomorrow.</source>
        <translation>O WhatsApp segurou a mensagem para limitar marketing a este cliente; tente amanhã.</translation>
    </message>
    <message>
        <source>The customer turned off marketing messages from us.</source>
        <translation>O cliente desativou nossas mensagens de marketing.</translation>
    </message>
    <message>
        <source>WhatsApp does not support this kind of message.</source>
        <translation>O WhatsApp não aceita este tipo de mensagem.</translation>
    </message>
    <message>
        <source>The attached media could not be uploaded.</source>
        <translation>Não foi possível enviar a mídia anexada.</translation>
    </message>
    <message>
        <source>Too many messages to this customer in a short time; it will be tried again.</source>
        <translation>Mensagens demais para este cliente em pouco tempo; será tentado de novo.</translation>
    </message>
    <message>
        <source>The template got the wrong number of values.</source>
        <translation>O modelo recebeu um número errado de valores.</translation>
    </message>
    <message>
        <source>The template does not exist in this language or is not approved.</source>
        <translation>O modelo não existe neste idioma ou não foi aprovado.</translation>
    </message>
    <message>
        <source>The template is paused for low quality.</source>
        <translation>O modelo está pausado por baixa qualidade.</translation>
    </message>
    <message>
        <source>The template is disabled.</source>
        <translation>O modelo está desativado.</translation>
    </message>
    <message>
        <source>Our phone number is not registered with WhatsApp.</source>
        <translation>Nosso número de telefone não está registrado no WhatsApp.</translation>
    </message>
    <message>
        <source>Our WhatsApp account is temporarily blocked for a policy violation.</source>
        <translation>Nossa conta do WhatsApp está bloqueada temporariamente por violar uma política.</translation>
    </message>
    <message>
        <source>No answer from WhatsApp after the message went out: it may or may not have reached the customer.</source>
        <translation>Sem resposta do WhatsApp depois que a mensagem saiu: ela pode ou não ter chegado ao cliente.</translation>
    </message>
    <message>
        <source>The sender stopped (a crash or a restart) while this message was going out: it may or may not have reached the customer.</source>
        <translation>O remetente parou (uma falha ou um reinício) enquanto esta mensagem saía: ela pode ou não ter chegado ao cliente.</translation>
    </message>
    <message>
        <source>The message never reached WhatsApp (no connection); it is tried again.</source>
        <translation>A mensagem nunca chegou ao WhatsApp (sem conexão); será tentada de novo.</translation>
    </message>
    <message>
        <source>WhatsApp accepted it but gave no message id to follow it by.</source>
        <translation>O WhatsApp aceitou, mas não deu um ID de mensagem para acompanhá-la.</translation>
    </message>
    <message>
        <source>The stored message cannot be sent as it is.</source>
        <translation>A mensagem guardada não pode ser enviada como está.</translation>
    </message>
    <message>
        <source>The data was restored from a backup taken while this message was waiting or going out: it may or may not have reached the customer.</source>
        <translation>Os dados foram restaurados de um backup feito enquanto esta mensagem aguardava ou saía: ela pode ou não ter chegado ao cliente.</translation>
    </message>
    <message>
        <source>Cancelled before it went: the customer opted out of marketing.</source>
        <translation>Cancelada antes de sair: o cliente saiu do marketing.</translation>
    </message>
    <message>
        <source>WhatsApp refused the message.</source>
        <translation>O WhatsApp recusou a mensagem.</translation>
    </message>
    <message>
        <source>{meaning} (code {code})</source>
        <translation>{meaning} (código {code})</translation>
    </message>
</context>
<context>
    <name>placement</name>
    <message>
        <source>answers our message</source>
        <translation>responde à nossa mensagem</translation>
    </message>
    <message>
        <source>part of the conversation</source>
        <translation>parte da conversa</translation>
    </message>
    <message>
        <source>not linked to a message</source>
        <translation>sem vínculo com uma mensagem</translation>
    </message>
    <message>
        <source>linked to a message by an agent</source>
        <translation>vinculada a uma mensagem por um atendente</translation>
    </message>
    <message>
        <source>a new topic</source>
        <translation>um assunto novo</translation>
    </message>
</context>
<context>
    <name>presence</name>
    <message>
        <source>{names} are typing…</source>
        <translation>{names} estão digitando…</translation>
    </message>
    <message>
        <source>{name} is typing…</source>
        <translation>{name} está digitando…</translation>
    </message>
    <message>
        <source>{names} are viewing</source>
        <translation>{names} estão vendo</translation>
    </message>
    <message>
        <source>{name} is viewing</source>
        <translation>{name} está vendo</translation>
    </message>
    <message>
        <source>{names} and {last}</source>
        <translation>{names} e {last}</translation>
    </message>
</context>
<context>
    <name>presentation</name>
    <message>
        <source>closed</source>
        <translation>fechada</translation>
    </message>
    <message>
        <source>{duration} left</source>
        <translation>faltam {duration}</translation>
    </message>
    <message>
        <source>{size} MB</source>
        <translation>{size} MB</translation>
    </message>
    <message>
        <source>{size} KB</source>
        <translation>{size} KB</translation>
    </message>
    <message>
        <source>{hours} h {minutes} m</source>
        <translation>{hours} h {minutes} min</translation>
    </message>
    <message>
        <source>{minutes} m</source>
        <translation>{minutes} min</translation>
    </message>
    <message>
        <source>a customer</source>
        <translation>um cliente</translation>
    </message>
    <message>
        <source>d MMM</source>
        <comment>date format</comment>
        <translation>d &apos;de&apos; MMM</translation>
    </message>
    <message>
        <source>{count} s</source>
        <translation>{count} s</translation>
    </message>
    <message>
        <source>{count} m</source>
        <translation>{count} min</translation>
    </message>
    <message>
        <source>{count} h</source>
        <translation>{count} h</translation>
    </message>
    <message>
        <source>{count} d</source>
        <translation>{count} d</translation>
    </message>
    <message>
        <source>⊘ Opted out of marketing</source>
        <translation>⊘ Saiu do marketing</translation>
    </message>
</context>
<context>
    <name>quality</name>
    <message>
        <source>High (green)</source>
        <translation>Alta (verde)</translation>
    </message>
    <message>
        <source>Medium (yellow)</source>
        <translation>Média (amarelo)</translation>
    </message>
    <message>
        <source>Low (red)</source>
        <translation>Baixa (vermelho)</translation>
    </message>
    <message>
        <source>Unknown</source>
        <translation>Desconhecida</translation>
    </message>
    <message>
        <source>not read yet</source>
        <translation>ainda não lido</translation>
    </message>
    <message>
        <source>no daily limit</source>
        <translation>sem limite diário</translation>
    </message>
    <message>
        <source>{count} customers a day</source>
        <translation>{count} clientes por dia</translation>
    </message>
    <message>
        <source>{amount} (set by hand; Meta says {tier})</source>
        <translation>{amount} (definido à mão; a Meta diz {tier})</translation>
    </message>
    <message>
        <source>nothing yet</source>
        <translation>nada ainda</translation>
    </message>
    <message>
        <source>{amount} (Meta has not said yet)</source>
        <translation>{amount} (a Meta ainda não informou)</translation>
    </message>
    <message>
        <source>⚠ Quality rating dropped to {rating}: Meta may lower the messaging limit. Check recent marketing and templates; customers who block or report the number lower it.</source>
        <translation>⚠ A classificação de qualidade caiu para {rating}: a Meta pode reduzir o limite de mensagens. Revise o marketing e os modelos recentes; clientes que bloqueiam ou denunciam o número a reduzem.</translation>
    </message>
</context>
<context>
    <name>snooze</name>
    <message>
        <source>1 hour</source>
        <translation>1 hora</translation>
    </message>
    <message>
        <source>3 hours</source>
        <translation>3 horas</translation>
    </message>
    <message>
        <source>Tomorrow 9:00</source>
        <translation>Amanhã às 9:00</translation>
    </message>
    <message>
        <source>Next Monday 9:00</source>
        <translation>Próxima segunda às 9:00</translation>
    </message>
</context>
<context>
    <name>state</name>
    <message>
        <source>queued</source>
        <translation>na fila</translation>
    </message>
    <message>
        <source>sending</source>
        <translation>enviando</translation>
    </message>
    <message>
        <source>accepted</source>
        <translation>aceita</translation>
    </message>
    <message>
        <source>sent</source>
        <translation>enviada</translation>
    </message>
    <message>
        <source>delivered</source>
        <translation>entregue</translation>
    </message>
    <message>
        <source>read</source>
        <translation>lida</translation>
    </message>
    <message>
        <source>failed</source>
        <translation>falhou</translation>
    </message>
    <message>
        <source>unknown</source>
        <translation>desconhecido</translation>
    </message>
    <message>
        <source>held</source>
        <translation>retida</translation>
    </message>
    <message>
        <source>cancelled</source>
        <translation>cancelada</translation>
    </message>
</context>
<context>
    <name>status</name>
    <message>
        <source>queued</source>
        <translation>na fila</translation>
    </message>
    <message>
        <source>sending</source>
        <translation>enviando</translation>
    </message>
    <message>
        <source>accepted by WhatsApp</source>
        <translation>aceita pelo WhatsApp</translation>
    </message>
    <message>
        <source>sent</source>
        <translation>enviada</translation>
    </message>
    <message>
        <source>delivered</source>
        <translation>entregue</translation>
    </message>
    <message>
        <source>read</source>
        <translation>lida</translation>
    </message>
    <message>
        <source>failed</source>
        <translation>falhou</translation>
    </message>
    <message>
        <source>unknown: it may or may not have reached the customer</source>
        <translation>desconhecido: pode ou não ter chegado ao cliente</translation>
    </message>
    <message>
        <source>held: the customer&apos;s window is closed</source>
        <translation>retida: a janela do cliente está fechada</translation>
    </message>
    <message>
        <source>cancelled</source>
        <translation>cancelada</translation>
    </message>
    <message>
        <source>Snoozed until {time}</source>
        <translation>Adiada até {time}</translation>
    </message>
    <message>
        <source>Snoozed</source>
        <translation>Adiada</translation>
    </message>
    <message>
        <source>Pending</source>
        <translation>Pendente</translation>
    </message>
    <message>
        <source>Resolved</source>
        <translation>Resolvida</translation>
    </message>
    <message>
        <source>Open</source>
        <translation>Aberta</translation>
    </message>
</context>
<context>
    <name>supervisor</name>
    <message>
        <source>Unknown outcome: the send may or may not have reached the customer.</source>
        <translation>Resultado desconhecido: o envio pode ou não ter chegado ao cliente.</translation>
    </message>
    <message>
        <source>Stuck in sending: the worker sending it stopped answering.</source>
        <translation>Travada enviando: o processo que a enviava parou de responder.</translation>
    </message>
    <message>
        <source>Held: the customer&apos;s 24-hour window closed before it could be sent.</source>
        <translation>Retida: a janela de 24 horas do cliente fechou antes que pudesse ser enviada.</translation>
    </message>
    <message>
        <source>WhatsApp reported &apos;{status}&apos; at {time} for {wamid}</source>
        <translation>O WhatsApp informou “{status}” às {time} para {wamid}</translation>
    </message>
</context>
<context>
    <name>templates</name>
    <message>
        <source>paused by Meta (low quality)</source>
        <translation>pausado pela Meta (baixa qualidade)</translation>
    </message>
    <message>
        <source>rejected by Meta</source>
        <translation>rejeitado pela Meta</translation>
    </message>
    <message>
        <source>waiting for Meta&apos;s review</source>
        <translation>aguardando a revisão da Meta</translation>
    </message>
    <message>
        <source>waiting for Meta&apos;s review of an appeal</source>
        <translation>aguardando a revisão da Meta de um recurso</translation>
    </message>
    <message>
        <source>disabled by Meta</source>
        <translation>desativado pela Meta</translation>
    </message>
    <message>
        <source>being deleted at Meta</source>
        <translation>sendo excluído na Meta</translation>
    </message>
    <message>
        <source>{status} at Meta</source>
        <translation>{status} na Meta</translation>
    </message>
    <message>
        <source>marketing, and this customer opted out of marketing</source>
        <translation>de marketing, e este cliente saiu do marketing</translation>
    </message>
</context>
</TS>
